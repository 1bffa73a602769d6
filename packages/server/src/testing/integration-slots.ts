import type { IntegrationContractView, IntegrationSlotView } from '@platform/schema/contract';
import type { Manifest } from '@platform/schema/manifest';

/** The slots of a consumer with the contracts they use, as `integrationSlots` takes them. */
export type TestIntegrationSlots = Record<
  string,
  { readonly slot: IntegrationSlotView; readonly contract?: IntegrationContractView }
>;

/**
 * The integration slots `consumer` declares, each with the contract one of `providers`
 * publishes under its integration (none when no provider publishes it), for
 * `createTestContext({ integrationSlots })`: the test context then checks and answers calls as
 * `platform dev` does by default, with each operation's declared `fake`.
 *
 * @example
 * ```ts
 * const sales = parseManifest(await readFile('sales/platform.yaml', 'utf8')).manifest!;
 * const crm = parseManifest(await readFile('crm/platform.yaml', 'utf8')).manifest!;
 * const ctx = createTestContext({ integrationSlots: integrationSlotsFrom(sales, [crm]) });
 * ```
 */
export function integrationSlotsFrom(
  consumer: Pick<Manifest, 'integrations'>,
  providers: readonly Pick<Manifest, 'provides'>[] = [],
): TestIntegrationSlots {
  const contracts = providers.flatMap((p) =>
    p.provides?.integration ? [p.provides.integration] : [],
  );
  return Object.fromEntries(
    Object.entries(consumer.integrations).map(([name, slot]) => {
      const contract = contracts.find((one) => one.name === slot.integration);
      return [
        name,
        {
          slot: {
            integration: slot.integration,
            account: slot.account,
            capabilities: [...slot.capabilities],
          },
          ...(contract
            ? {
                contract: {
                  name: contract.name,
                  operations: contract.operations.map((op) => ({
                    name: op.name,
                    capability: op.capability,
                    fake: op.fake,
                  })),
                },
              }
            : {}),
        },
      ];
    }),
  );
}
