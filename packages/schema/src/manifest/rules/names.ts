import type { RuleContext } from '../context.ts';
import type { PathSegment } from '../diagnostic.ts';

/** Secret names starting with this prefix are reserved for the platform's own variables. */
export const reservedSecretPrefix = 'PLATFORM_';

/** Reports a secret-like name under the reserved prefix. */
export function checkReservedName(
  ctx: RuleContext,
  path: readonly PathSegment[],
  name: string,
): void {
  if (name.startsWith(reservedSecretPrefix)) {
    ctx.report(
      'SECRET_NAME_RESERVED',
      path,
      `"${name}" starts with ${reservedSecretPrefix}, which the platform reserves; choose another name.`,
    );
  }
}

/** Secrets and email aliases: unique, not reserved; the inbound email Function is system. */
export function checkNames(ctx: RuleContext): void {
  const secrets = new Set<string>();
  ctx.manifest.secrets.forEach((name, i) => {
    if (secrets.has(name))
      ctx.report('SECRET_NAME_DUPLICATE', ['secrets', i], `Secret ${name} is declared twice.`);
    secrets.add(name);
    checkReservedName(ctx, ['secrets', i], name);
  });
  const aliases = new Set<string>();
  ctx.manifest.email.aliases.forEach((alias, i) => {
    if (aliases.has(alias.name)) {
      ctx.report(
        'EMAIL_ALIAS_DUPLICATE',
        ['email', 'aliases', i, 'name'],
        `Email alias "${alias.name}" is declared twice.`,
      );
    }
    aliases.add(alias.name);
  });
  const inbound = ctx.manifest.email.inbound;
  if (inbound !== undefined) {
    ctx.requireSystemFunction(
      ['email', 'inbound', 'function'],
      inbound.function,
      'EMAIL_INBOUND_FUNCTION_NOT_SYSTEM',
      'Inbound email Function',
    );
  }
}
