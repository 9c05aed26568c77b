// A scan followed to its end: the dashboard starts it asynchronously and says what the scanner is doing while it
// polls the scan (`queued`, then `running` with its `stage`), instead of a bare "Loading…" for seconds.
import type { Schemas } from './api-types.js';
import { api } from './ui.js';

type ScanState = Schemas['ScanCompleted'] | Schemas['ScanInProgress'] | Schemas['ScanFailed'];

const POLL_MS = 1000;

/** What a scan in progress is doing, in plain words, from its `status` and `stage`. */
export function progressText(state: Schemas['ScanInProgress']): string {
  if (state.status === 'queued') return 'Waiting for a free scanner…';
  if (state.stage === 'storing') return 'Saving the result…';
  return 'Loading the page in a browser and recording what it sends…';
}

const scanState = (scanId: string) =>
  api<ScanState>('GET', `/api/v1/tracking-checker/scans/${encodeURIComponent(scanId)}/`);

/**
 * Polls the scan until it ends: its result when completed, an error with the scan's message when it failed.
 * `onProgress` is told each state on the way (`first`, when the caller already has one, is not asked for again).
 */
export async function followScan(
  scanId: string,
  onProgress: (text: string) => void,
  first?: ScanState,
): Promise<Schemas['ScanCompleted']> {
  let state = first ?? (await scanState(scanId));
  for (;;) {
    if (state.status === 'completed') return state;
    if (state.status === 'failed') throw new Error(state.error.message);
    onProgress(progressText(state));
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    state = await scanState(scanId);
  }
}

/** Starts a scan with `Prefer: respond-async` (202 and the queued scan at once), then follows it to its result. */
export async function scanAsync(body: unknown, onProgress: (text: string) => void): Promise<Schemas['ScanCompleted']> {
  const accepted = await api<Schemas['ScanInProgress']>('POST', '/api/v1/tracking-checker/scan/', body, {
    prefer: 'respond-async',
  });
  return followScan(accepted.scan_id, onProgress, accepted);
}
