import { hex8 } from './seed.ts';

/** What the offline text answer is derived from: the wire form of a text call, less the bytes. */
export interface OfflineTextRequest {
  readonly instructions?: string | undefined;
  readonly prompt: string;
  /** Only the kind of each attachment counts: file refs and bytes differ between runs. */
  readonly attachments?: readonly { readonly type: 'file' | 'image' }[] | undefined;
}

const PROMPT_SHOWN = 120;

/**
 * The offline answer to a text call: a sentence naming the prompt (and the attachments), with a
 * digest of the whole request so that different requests never share an answer.
 */
export function offlineText(request: OfflineTextRequest): string {
  const prompt = request.prompt.trim().replace(/\s+/g, ' ');
  const shown = prompt.length > PROMPT_SHOWN ? `${prompt.slice(0, PROMPT_SHOWN)}…` : prompt;
  const count = request.attachments?.length ?? 0;
  const attached = count === 0 ? '' : ` with ${count} attachment${count === 1 ? '' : 's'}`;
  const digest = hex8(JSON.stringify([request.instructions ?? null, request.prompt, count]));
  return `Offline answer ${digest} to "${shown}"${attached}.`;
}

/**
 * Splits a text into the chunks `streamText` sends: word by word, so a stream always has
 * several chunks for any text of two words or more, and at least two for one longer word.
 */
export function offlineChunks(text: string): string[] {
  const words = text.split(/(?<= )/).filter((w) => w !== '');
  if (words.length > 1) return words;
  const cut = Math.ceil(text.length / 2);
  return [text.slice(0, cut), text.slice(cut)].filter((w) => w !== '');
}
