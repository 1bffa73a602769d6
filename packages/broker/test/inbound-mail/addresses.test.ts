import { describe, expect, it } from 'vitest';
import { devMailDomain, InboundAddresses } from '../../src/inbound-mail/addresses.ts';
import { smtpReplyFor } from '../../src/inbound-mail/smtp-listener.ts';

describe('devMailDomain', () => {
  it('is the app folder name as one DNS label under .localhost', () => {
    expect(devMailDomain('/work/examples/todo')).toBe('todo.localhost');
    expect(devMailDomain('/home/ann/My App_2')).toBe('my-app-2.localhost');
    expect(devMailDomain('/tmp/__')).toBe('app.localhost');
    expect(devMailDomain(`/x/${'a'.repeat(80)}`)).toBe(`${'a'.repeat(63)}.localhost`);
  });
});

describe('InboundAddresses', () => {
  const addresses = new InboundAddresses('todo.localhost', ['todo', 'Help']);

  it('matches the aliases and their subaddresses at the domain, in any case', () => {
    expect(addresses.list()).toEqual(['todo@todo.localhost', 'help@todo.localhost']);
    expect(addresses.match('TODO@Todo.Localhost')).toBe('todo@todo.localhost');
    expect(addresses.match('help+ticket-9@todo.localhost')).toBe('help+ticket-9@todo.localhost');
    expect(addresses.match('todo@other.localhost')).toBeUndefined();
    expect(addresses.match('todos@todo.localhost')).toBeUndefined();
    expect(addresses.match('@todo.localhost')).toBeUndefined();
    expect(addresses.match('todo')).toBeUndefined();
  });

  it('refuses another address with EMAIL_RECIPIENT_UNKNOWN naming the app’s, which SMTP answers 550', () => {
    let error: unknown;
    try {
      addresses.require('nobody@todo.localhost');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 'EMAIL_RECIPIENT_UNKNOWN',
      details: { addresses: ['todo@todo.localhost', 'help@todo.localhost'] },
    });
    expect(smtpReplyFor(error)).toMatchObject({ responseCode: 550 });
    expect(() => new InboundAddresses('x.localhost', []).require('a@x.localhost')).toThrow(
      'declares no email.aliases',
    );
  });
});
