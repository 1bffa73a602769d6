// The private notes page: platform dev lets only admitted accounts load it, and
// @platform/browser calls the `user` Function addNote with the session's access token.
import { platform } from '@platform/browser';

interface Added {
  user: { id: string } | null;
  notes: string[];
}

const $ = (id: string) => document.getElementById(id) as HTMLElement;

/** Adds a note and shows the list; also what the end-to-end test calls. */
async function addNote(note: string): Promise<Added> {
  const added = (await platform.functions.call('addNote', { note })) as Added;
  $('notes').replaceChildren(
    ...added.notes.map((text) =>
      Object.assign(document.createElement('li'), { textContent: text }),
    ),
  );
  return added;
}

declare global {
  interface Window {
    privateNotes: { addNote: typeof addNote; currentUser: typeof platform.auth.currentUser };
  }
}
window.privateNotes = { addNote, currentUser: () => platform.auth.currentUser() };

$('new-note').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('note') as HTMLInputElement;
  void addNote(input.value).then(() => {
    input.value = '';
  });
});

const user = await platform.auth.currentUser();
$('who').textContent = user ? `Signed in as ${user.email}` : 'Signed out';
