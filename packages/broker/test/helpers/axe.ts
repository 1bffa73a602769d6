import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

let source: Promise<string> | undefined;

/**
 * Runs axe-core in `page` on the console panel of `group` (with the page's header and
 * navigation) and fails on any serious or critical violation, naming them all. The page's
 * context must let an injected script past its CSP (`bypassCSP: true`).
 */
export async function expectAccessiblePanel(page: Page, group: string): Promise<void> {
  source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: await source });
  const violations = await page.evaluate(async (selector) => {
    const w = window as unknown as {
      axe: {
        run(
          context: unknown,
          options: unknown,
        ): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
      };
    };
    const result = await w.axe.run(
      { include: [selector, 'nav', 'header'] },
      { resultTypes: ['violations'] },
    );
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  }, `#panel-${group}`);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${group}: ${JSON.stringify(violations)}`).toEqual([]);
}
