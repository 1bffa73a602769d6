import type { AuthService } from '../auth/auth-service.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import type { FileService } from '../files/file-service.ts';
import { printableError } from '../logs/printable.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { mountOutboxRoutes } from '../outbox/outbox-routes.ts';
import { devMailDomain, InboundAddresses } from './addresses.ts';
import { InboundMail } from './inbound-mail.ts';
import { mountInboundMailRoutes } from './inbound-routes.ts';

/**
 * Received mail (docs/email.md): messages to the app's addresses (its `emailAliases` at
 * `<app folder>.localhost`) go to the inbound email Function `functionName`, none when
 * undefined. It also mounts the outbox listing, which shows sent and received mail together.
 */
export function inboundMailFeature(settings: {
  readonly functionName: string | undefined;
  readonly emailAliases: readonly string[];
}): BrokerFeature<
  'inboundMail',
  { files: FileService; auth: AuthService; outbox: Outbox },
  InboundMail
> {
  return {
    name: 'inboundMail',
    start: async (base, { files, auth }) => {
      const inbound = new InboundMail({
        db: base.db,
        activity: base.activity,
        files,
        invoker: base.invoker,
        addresses: new InboundAddresses(devMailDomain(base.appDir), settings.emailAliases),
        functionName: settings.functionName,
        // Spec 3.3: while the owner is paused for verification, inbound mail stops.
        paused: () => auth.appPaused(),
      });
      // The attachments of deliveries a killed broker left unfinished; a failing sweep must not
      // keep the broker from starting (the records stay for the next start).
      await inbound
        .sweepInterrupted()
        .then(({ attempts, files }) => {
          if (attempts > 0) {
            base.print(
              `inbound mail: removed the attachments of ${attempts} delivery attempt(s) a stopped broker left unfinished (${files} file(s)); their senders send again`,
            );
          }
        })
        .catch((error) => base.print(`WARN  inbound mail sweep: ${printableError(error)}`));
      return inbound;
    },
    mount: {
      routes: (app, inbound, { outbox }, { appId }) => {
        mountOutboxRoutes(app, { appId, outbox, received: inbound });
        mountInboundMailRoutes(app, { appId, inbound, outbox });
      },
    },
    erasure: {
      appPerson: (tx, { email }) =>
        eraseRows(tx, 'inbound_mail', 'lower(from_address) = $1 OR lower(envelope_from) = $1', [
          email,
        ]),
    },
  };
}
