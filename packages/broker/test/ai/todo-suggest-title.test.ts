import { createTestContext } from '@platform/server/testing';
import { describe, expect, it } from 'vitest';
import suggestTitle from '../../../../examples/todo/functions/suggest-title/index.ts';
import { readAiFixtures } from '../../src/ai/ai-fixtures-file.ts';
import { exampleDir } from '../e2e/helpers.ts';

describe('the todo example suggests titles with ctx.ai', () => {
  it('turns a description into a short title with the offline AI, the same on every run', async () => {
    const run = () =>
      suggestTitle.run(
        createTestContext({
          input: { description: 'call the plumber about the kitchen sink leak' },
        }),
      );
    const { title } = await run();
    expect(title.length).toBeGreaterThan(0);
    expect(title.length).toBeLessThanOrEqual(60);
    expect(title).toContain('plumber');
    expect(await run()).toEqual({ title });
  });

  it('answers from the example app’s ai-fixtures.yaml for a pinned prompt', async () => {
    const fixtures = await readAiFixtures(exampleDir);
    const ctx = createTestContext({
      input: { description: 'buy milk, eggs and bread' },
      ai: { fixtures },
    });
    expect(await suggestTitle.run(ctx)).toEqual({ title: 'Weekend groceries' });
  });
});
