/**
 * The states of the Background jobs chart in the order they stack, bottom first: how the jobs
 * of a minute fared, then those still open. Shared by the section's key and its script.
 */
export const jobChartStates = [
  'succeeded',
  'dead_lettered',
  'running',
  'retry_wait',
  'queued',
] as const;
