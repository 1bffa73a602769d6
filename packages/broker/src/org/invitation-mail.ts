import { ACCOUNT_PAGE } from '../http/paths.ts';
import type { Outbox } from '../outbox/outbox.ts';
import type { Invitation } from './memberships.ts';

/**
 * Sends the invitation email of an administrator's invitation through the app's mail (the
 * outbox under `platform dev`): who invited, where to accept (the account page of `appUrl`,
 * after signing in or signing up with the invited address) and until when. An address that is
 * a member already gets nothing. The email holds no secret: accepting needs a session of the
 * invited address, so a forwarded email lets nobody else in.
 */
export async function sendInvitation(
  outbox: Outbox,
  invitation: Invitation,
  from: { readonly inviter: string; readonly appUrl: string },
): Promise<void> {
  if (invitation.state !== 'invited') return;
  const page = `${from.appUrl}${ACCOUNT_PAGE}`;
  await outbox.capture(
    {
      from: 'auth',
      to: invitation.email,
      subject: 'You are invited to join an organisation',
      text: `${from.inviter} invited you to join their organisation. Sign in, or sign up with this address (${invitation.email}), then open ${page} and choose "Join the organisation". The invitation works until ${invitation.expiresAt}. If you did not expect it, ignore this email.`,
    },
    ['auth'],
  );
}
