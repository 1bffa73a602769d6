// The console's Access section, in the browser: the token list, Create (which answers a
// one-time reveal link, never a value) and Revoke with a confirmation.
import {
  $,
  actionCell,
  confirmed,
  fill,
  get,
  localTime,
  row,
  run,
  type SectionScript,
  send,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { AppTokenInfo } from './app-tokens.ts';

type Api = { readonly tokens: string };

async function load(api: Api): Promise<void> {
  let tokens: AppTokenInfo[];
  try {
    ({ tokens } = await get<{ tokens: AppTokenInfo[] }>(api.tokens, {}));
  } catch (error) {
    // A broker without sign-in's admission (a test identity) keeps tokens to the dev token.
    $('token-status').textContent = `Tokens are not available here: ${(error as Error).message}`;
    return;
  }
  $('token-status').textContent = '';
  fill(
    'tokens',
    tokens.map((t) => {
      const tr = row([
        t.name,
        t.hint ? `${t.hint}…` : '',
        t.state,
        localTime(t.createdAt),
        localTime(t.lastUsedAt) || 'never',
      ]);
      tr.dataset.id = t.id;
      tr.append(
        actionCell(
          'Revoke',
          async () => {
            if (!confirmed(`Revoke the token "${t.name}"? Apps using it stop working.`)) return;
            await send('DELETE', `${api.tokens}/${encodeURIComponent(t.id)}`);
            await load(api);
          },
          `Revoke ${t.name}`,
        ),
      );
      return tr;
    }),
    'No app access tokens yet.',
    6,
  );
}

function listen(api: Api): void {
  $<HTMLFormElement>('token-create').addEventListener('submit', (event) => {
    event.preventDefault();
    run(async () => {
      const name = $<HTMLInputElement>('token-name').value;
      const made = await send<{ name: string; revealUrl: string }>('POST', api.tokens, { name });
      $('token-made').textContent = made.name;
      $<HTMLAnchorElement>('token-reveal-link').href = made.revealUrl;
      $('token-reveal').hidden = false;
      await load(api);
    })();
  });
}

export default {
  open: async (api) => {
    listen(api);
    await load(api);
  },
  refresh: load,
} satisfies SectionScript<'tokens'>;
