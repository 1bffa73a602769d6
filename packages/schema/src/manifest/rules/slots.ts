import type { RuleContext } from '../context.ts';

/** Spec 2.11: integration slots this app consumes. */
export function checkSlots(ctx: RuleContext): void {
  for (const [slot, declaration] of Object.entries(ctx.manifest.integrations)) {
    const at = ['integrations', slot] as const;
    const seen = new Set<string>();
    declaration.capabilities.forEach((capability, i) => {
      if (seen.has(capability)) {
        ctx.report(
          'SLOT_CAPABILITY_DUPLICATE',
          [...at, 'capabilities', i],
          `Capability "${capability}" is requested twice by slot "${slot}".`,
        );
      }
      seen.add(capability);
    });
    const events = declaration.events;
    if (events === undefined) continue;
    if (declaration.account !== 'app') {
      ctx.report(
        'SLOT_EVENTS_REQUIRE_APP_ACCOUNT',
        [...at, 'events'],
        `Slot "${slot}" has account: ${declaration.account}; only account: app slots receive events. Remove events or use account: app.`,
        'key',
      );
    }
    ctx.requireSystemFunction(
      [...at, 'events', 'function'],
      events.function,
      'SLOT_EVENTS_FUNCTION_NOT_SYSTEM',
      `Event handler of slot "${slot}"`,
    );
  }
}
