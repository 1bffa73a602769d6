import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One email the sink accepted. */
export interface SunkEmail {
  /** The envelope's sender and recipients, as the client gave them. */
  readonly mailFrom: string;
  readonly rcptTo: readonly string[];
  /** The `From:` header's address. */
  readonly from: string;
  readonly subject: string;
  readonly text: string;
}

/** A real SMTP server on loopback that accepts mail for one account and keeps it. */
export interface SmtpSink {
  readonly port: number;
  readonly received: readonly SunkEmail[];
  /** The first email (already received or still to come) that `match` accepts; throws after 20 s. */
  next(match: (email: SunkEmail) => boolean): Promise<SunkEmail>;
  close(): Promise<void>;
}

/**
 * Starts an SMTP server (`smtp-server`) on 127.0.0.1 that requires the login `user`/`password`
 * (in plain text: loopback only, no TLS) and keeps each email it accepts, parsed.
 */
export async function startSmtpSink(user: string, password: string): Promise<SmtpSink> {
  const received: SunkEmail[] = [];
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, done) {
      if (auth.username === user && auth.password === password) done(null, { user });
      else done(new Error('535 5.7.8 Authentication failed'));
    },
    onData(stream, session, done) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcptTo: session.envelope.rcptTo.map((one) => one.address),
            from: parsed.from?.value[0]?.address ?? '',
            subject: parsed.subject ?? '',
            text: (parsed.text ?? '').trim(),
          });
          for (const wake of waiting) wake();
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    next(match) {
      return new Promise<SunkEmail>((resolve, reject) => {
        const look = () => {
          const found = received.find(match);
          if (found === undefined) return;
          waiting.delete(look);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiting.delete(look);
          reject(
            new Error(`no such email; received: ${received.map((e) => e.subject).join(', ')}`),
          );
        }, 20_000);
        waiting.add(look);
        look();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
