import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { FileService } from '../files/file-service.ts';
import { type AiOptions, createAiProvider } from './ai-config.ts';
import { mountAiRoutes } from './ai-routes.ts';
import { aiSection } from './ai-section.ts';
import { AiService } from './ai-service.ts';

/** `ctx.ai` and its recent calls (docs/ai.md). @param options the provider and its models */
export function aiFeature(
  options: AiOptions | undefined,
): BrokerFeature<'ai', { files: FileService }, AiService> {
  return {
    name: 'ai',
    start: async (base, { files }) => {
      const provider = await createAiProvider(base.appDir, options);
      // The AI key, endpoint and model names are hidden like secrets wherever output is printed.
      if (provider !== undefined) base.redact(provider.confidential);
      return new AiService({
        provider,
        files,
        logs: base.logs,
        ...(options?.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        showContent: options?.showContent === true,
      });
    },
    dashboard: [aiSection],
    mount: { routes: (app, ai, _needs, { appId }) => mountAiRoutes(app, { appId, ai }) },
  };
}
