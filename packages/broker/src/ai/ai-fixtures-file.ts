import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AiFixture, parseAiFixtures } from '@platform/server/testing';
import { parse } from 'yaml';

/** The fixtures file of the offline AI, in the app folder. */
export const AI_FIXTURES_FILE = 'ai-fixtures.yaml';

/**
 * The app's pinned offline AI answers (`ai-fixtures.yaml`), or none when the file is absent.
 * A malformed file fails the start with the file and the entry named.
 */
export async function readAiFixtures(appDir: string): Promise<AiFixture[]> {
  let text: string;
  try {
    text = await readFile(join(appDir, AI_FIXTURES_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    return parseAiFixtures(parse(text));
  } catch (error) {
    throw new Error(
      `${AI_FIXTURES_FILE}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
