import type { CapturedEmail } from '../outbox/outbox.ts';

// A header value as an RFC 2047 encoded word when it is not plain ASCII; the outbox already
// refuses CR and LF in addresses and the subject.
const headerText = (value: string): string =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`;

// A body part's bytes: base64 in lines of 76, so no line is too long and any text survives.
const base64Lines = (text: string): string =>
  (
    Buffer.from(text)
      .toString('base64')
      .match(/.{1,76}/g) ?? []
  ).join('\r\n');

const part = (type: 'plain' | 'html', text: string): string[] => [
  `Content-Type: text/${type}; charset=utf-8`,
  'Content-Transfer-Encoding: base64',
  '',
  base64Lines(text),
];

/**
 * A captured (sent) email as the RFC 5322 message a mail client would have received: `From`
 * the sender alias at `domain` (the app's mail domain), its `To`, `Reply-To` and `Subject`, and
 * its text and HTML bodies (`multipart/alternative` when it has both). The inbound email
 * Function then gets it through the same parser as any message that arrives.
 */
export function capturedAsMessage(email: CapturedEmail, domain: string): Uint8Array {
  const from = email.from.includes('@') ? email.from : `${email.from}@${domain}`;
  const headers = [
    `From: ${from}`,
    `To: ${email.to.join(', ')}`,
    ...(email.replyTo ? [`Reply-To: ${email.replyTo}`] : []),
    `Subject: ${headerText(email.subject)}`,
    `Date: ${new Date(email.createdAt).toUTCString()}`,
    `Message-ID: <${email.id}@${domain}>`,
    'MIME-Version: 1.0',
  ];
  const bodies: [type: 'plain' | 'html', text: string][] = [];
  if (email.text !== null) bodies.push(['plain', email.text]);
  if (email.html !== null) bodies.push(['html', email.html]);
  const [only] = bodies;
  const lines =
    bodies.length === 2
      ? [
          ...headers,
          `Content-Type: multipart/alternative; boundary="${email.id}"`,
          '',
          ...bodies.flatMap(([type, text]) => [`--${email.id}`, ...part(type, text)]),
          `--${email.id}--`,
        ]
      : [...headers, ...part(only?.[0] ?? 'plain', only?.[1] ?? '')];
  return new TextEncoder().encode(`${lines.join('\r\n')}\r\n`);
}
