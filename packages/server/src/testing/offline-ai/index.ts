/**
 * The deterministic offline AI, shared by the test kit and the local broker so that a unit
 * test and `platform dev` give the same answer to the same request.
 */
export { type AiFixture, fixtureMatches, parseAiFixtures } from './fixtures.ts';
export { createOfflineAi, type OfflineAi, type OfflineAiOptions } from './offline-ai.ts';
export { OFFLINE_IMAGE_SIZE, offlineImage } from './offline-image.ts';
export { offlineObject } from './offline-object.ts';
export { type OfflineTextRequest, offlineChunks, offlineText } from './offline-text.ts';
export { encodePng } from './png.ts';
