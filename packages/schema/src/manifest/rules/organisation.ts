import type { RuleContext } from '../context.ts';
import type { IntegrationContract } from '../manifest-schema.ts';
import { didYouMean } from '../suggest.ts';

/**
 * Spec 2.9 and 7.2, organisation level: a duplicate integration name is an error; a slot whose
 * integration no active app publishes, or that requests a capability or event type the
 * integration does not offer, is a warning.
 */
export function checkOrganisation(ctx: RuleContext): void {
  const apps = ctx.options.organisation?.apps;
  if (apps === undefined) return;
  const published = new Map<string, { app: string; contract: IntegrationContract }>();
  for (const app of apps) {
    const contract = app.manifest.provides?.integration;
    if (app.active === false || contract === undefined) continue;
    if (!published.has(contract.name)) published.set(contract.name, { app: app.name, contract });
  }

  const own = ctx.manifest.provides?.integration;
  if (own !== undefined) {
    const other = published.get(own.name);
    if (other !== undefined) {
      ctx.report(
        'INTEGRATION_NAME_TAKEN',
        ['provides', 'integration', 'name'],
        `Integration name "${own.name}" is already published by the active app "${other.app}"; integration names are unique in the organisation. Choose another name.`,
      );
    } else {
      published.set(own.name, { app: 'this app', contract: own });
    }
  }

  for (const [slot, declaration] of Object.entries(ctx.manifest.integrations)) {
    const at = ['integrations', slot] as const;
    const provider = published.get(declaration.integration);
    if (provider === undefined) {
      ctx.report(
        'INTEGRATION_NOT_PUBLISHED',
        [...at, 'integration'],
        `No active app of the organisation publishes integration "${declaration.integration}"; the slot cannot be bound until one does.${didYouMean(declaration.integration, published.keys())}`,
      );
      continue;
    }
    const offered = new Set(provider.contract.capabilities.map((c) => c.name));
    declaration.capabilities.forEach((capability, i) => {
      if (!offered.has(capability)) {
        ctx.report(
          'INTEGRATION_CAPABILITY_NOT_OFFERED',
          [...at, 'capabilities', i],
          `Integration "${declaration.integration}" (published by ${provider.app}) does not offer capability "${capability}"; it offers ${[...offered].join(', ')}.`,
        );
      }
    });
    const types = new Set((provider.contract.events ?? []).map((e) => e.type));
    declaration.events?.types?.forEach((type, i) => {
      if (!types.has(type)) {
        ctx.report(
          'INTEGRATION_EVENT_NOT_OFFERED',
          [...at, 'events', 'types', i],
          `Integration "${declaration.integration}" does not declare event type "${type}".${didYouMean(type, types)}`,
        );
      }
    });
  }
}
