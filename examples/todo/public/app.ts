// The todo app's page: @platform/browser calls the app's Functions on this origin.
import { type FunctionResult, isPlatformError, platform } from '@platform/browser';
import { push } from '@platform/browser/push';
import { createRealtime } from '@platform/browser/realtime';

// Typed by platform-env.gen.d.ts (`platform types`): results carry the Functions' own types.
type Todo = FunctionResult<'listTodos'>['todos'][number];

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string) => {
  $('status').textContent = text;
};

async function showTips(): Promise<void> {
  const stats = await platform.functions.call('publicStats', {});
  $('tips').replaceChildren(
    ...stats.tips.map((tip) => Object.assign(document.createElement('li'), { textContent: tip })),
  );
}

function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function row(todo: Todo): HTMLLIElement {
  const li = document.createElement('li');
  li.className = todo.done ? 'done' : '';
  li.dataset.id = todo.id;
  const box = Object.assign(document.createElement('input'), {
    type: 'checkbox',
    checked: todo.done,
  });
  box.onchange = () => run(() => platform.functions.call('toggleTodo', { id: todo.id }));
  const title = Object.assign(document.createElement('span'), { textContent: todo.title });
  const attach = Object.assign(document.createElement('input'), { type: 'file' });
  attach.onchange = () => {
    const file = attach.files?.[0];
    if (!file) return;
    void run(async () => {
      const base64 = await fileToBase64(file);
      await platform.functions.call('attachFile', {
        todoId: todo.id,
        name: file.name,
        contentType: file.type || 'application/octet-stream',
        base64,
      });
    });
  };
  const note = Object.assign(document.createElement('small'), {
    textContent: todo.attachment_name ? `📎 ${todo.attachment_name}` : '',
  });
  li.append(box, title, note, attach);
  return li;
}

async function showTodos(): Promise<void> {
  const { todos } = await platform.functions.call('listTodos', {});
  $('todos').replaceChildren(...todos.map(row));
}

/** Runs an action, then refreshes the list; sign-in problems show the sign-in link. */
async function run(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
    await showTodos();
    status('');
  } catch (error) {
    if (isPlatformError(error, 'AUTH_REQUIRED')) signedOut();
    else status(isPlatformError(error) ? `${error.code}: ${error.message}` : String(error));
  }
}

function signedOut(): void {
  $('who').textContent = 'Sign in to keep a todo list.';
  const link = $<HTMLAnchorElement>('sign-in');
  link.href = platform.auth.signInUrl();
  link.hidden = false;
  $('todos-section').hidden = true;
}

$('new-todo').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>('title');
  void run(async () => {
    await platform.functions.call('createTodo', { title: input.value });
    input.value = '';
  });
});

// The suggestTitle Function asks ctx.ai for a short title for what was typed.
$('suggest').addEventListener('click', () => {
  const input = $<HTMLInputElement>('title');
  if (input.value.trim() === '') return;
  void (async () => {
    try {
      const { title } = await platform.functions.call('suggestTitle', { description: input.value });
      input.value = title;
      status('');
    } catch (error) {
      if (isPlatformError(error, 'AUTH_REQUIRED')) signedOut();
      else status(isPlatformError(error) ? `${error.code}: ${error.message}` : String(error));
    }
  })();
});

// Search goes through the searchTodos Function (ctx.data.search runs only in Functions, under
// the caller's RLS); the page shows the hits best first.
$('search').addEventListener('submit', (event) => {
  event.preventDefault();
  const query = $<HTMLInputElement>('search-query').value;
  const done = $<HTMLSelectElement>('search-done').value;
  const results = $('search-results');
  void (async () => {
    try {
      const { hits } = await platform.functions.call('searchTodos', {
        query,
        ...(done === '' ? {} : { done: done === 'true' }),
      });
      results.replaceChildren(
        ...hits.map(({ record }) =>
          Object.assign(document.createElement('li'), {
            className: record.done ? 'done' : '',
            textContent: record.notes ? `${record.title} (${record.notes})` : record.title,
          }),
        ),
      );
      status(hits.length === 0 ? 'No todo matches.' : '');
    } catch (error) {
      results.replaceChildren();
      if (isPlatformError(error, 'AUTH_REQUIRED')) signedOut();
      else status(isPlatformError(error) ? `${error.code}: ${error.message}` : String(error));
    }
  })();
});

$('export').addEventListener('click', async () => {
  const out = $('csv');
  out.hidden = false;
  out.textContent = '';
  const decoder = new TextDecoder();
  for await (const chunk of platform.functions.stream('exportTodos', {})) {
    out.textContent += decoder.decode(chunk, { stream: true });
  }
});

// Reminders arrive as push notifications on the devices where the user turned them on; the
// service worker (public/sw.ts) shows them.
$('notify').addEventListener('click', () => {
  void (async () => {
    try {
      const device = await push.subscribe();
      status(
        device.pushService === 'local'
          ? 'Reminders on: the local push service receives them (see the dashboard).'
          : 'Reminders on for this device.',
      );
    } catch (error) {
      status(isPlatformError(error) ? `${error.code}: ${error.message}` : String(error));
    }
  })();
});

$('notify-off').addEventListener('click', () => {
  void (async () => {
    try {
      const removed = await push.unsubscribe();
      status(removed ? 'Reminders off for this device.' : 'Reminders were not on for this device.');
    } catch (error) {
      status(isPlatformError(error) ? `${error.code}: ${error.message}` : String(error));
    }
  })();
});

// Live: a todo added in another tab appears here, and the page lists who is viewing the app.
// The todos table is in realtime.tables of platform.yaml: each change reaches only the users
// its RLS policy lets see the row (here, the owner).
async function live(name: string): Promise<void> {
  const realtime = createRealtime();
  await realtime.changes('todos', () => void showTodos());
  // After a reconnect, changes may have been missed: read the list again.
  realtime.onGap(() => void showTodos());
  const viewers = await realtime.channel('viewers', { presence: { name } });
  viewers.onPresence((members) => {
    const names = [...new Set(members.map((m) => String(m.state.name)))].sort();
    $('viewers').textContent = `Viewing now: ${names.join(', ')}`;
  });
}

async function start(): Promise<void> {
  if ('serviceWorker' in navigator) {
    await navigator.serviceWorker.register('/sw.js', { type: 'module' }).catch(() => undefined);
  }
  await showTips().catch((error) => status(String(error)));
  const user = await platform.auth.currentUser().catch(() => null);
  $('who').textContent = user ? `Signed in as ${user.displayName ?? user.email ?? user.id}` : '';
  await run(async () => undefined);
  if (user) await live(user.displayName ?? user.email ?? user.id).catch((e) => status(String(e)));
  document.body.dataset.ready = 'true';
}

void start();
