import fs from 'node:fs/promises';

/** One request nginx proxied itself, as its meter log line says. */
export interface NativeRequest {
  at: number;
  containerId: string;
  hostname: string;
  status: number;
  requestBytes: number;
  responseBytes: number;
  method: string;
  /** From nginx sending the request to the end of the upstream's answer; null when no upstream answered. */
  upstreamMs: number | null;
  durationMs: number;
  path: string;
}

/** Parses one line of the `tagport_meter` format (tab-separated); null for a line of another shape. */
export function parseMeterLine(line: string): NativeRequest | null {
  const fields = line.split('\t');
  if (fields.length < 10) return null;
  const [msec, containerId, hostname, status, contentLength, bodyBytes, method, upstreamTime, requestTime] = fields;
  const at = Math.round(Number(msec) * 1000);
  if (!containerId || !Number.isFinite(at)) return null;
  // Retried or redirected requests list one time per upstream tried ("0.002, 0.001"); the last one answered.
  const lastUpstream = upstreamTime.split(/[,:]\s*/).pop() ?? '';
  const upstreamSeconds = Number(lastUpstream);
  return {
    at,
    containerId,
    hostname,
    status: Number(status) || 0,
    requestBytes: Number(contentLength) || 0,
    responseBytes: Number(bodyBytes) || 0,
    method,
    upstreamMs:
      lastUpstream === '' || lastUpstream === '-' || Number.isNaN(upstreamSeconds) ? null : upstreamSeconds * 1000,
    durationMs: Math.round(Number(requestTime) * 1000) || 0,
    path: fields.slice(9).join('\t'),
  };
}

/** Above this size the log is rotated: renamed, nginx told to reopen (SIGUSR1), the old file read to its end. */
const ROTATE_AT_BYTES = 16 * 1024 * 1024;

/**
 * Reads nginx's meter log as it grows, from where the last read stopped, whole lines only. The log is rotated
 * by renaming: nginx keeps writing to the renamed file until it reopens, so the renamed file is read for one
 * more pass after the new one appears, then deleted. No line is read twice or skipped.
 */
export class MeterLogReader {
  private offset = 0;
  private rotated: { path: string; offset: number; passes: number } | null = null;

  constructor(
    private readonly path: string,
    /** Asks nginx to reopen its log files. */
    private readonly reopen: () => void,
    private readonly rotateAtBytes = ROTATE_AT_BYTES,
  ) {}

  async read(): Promise<NativeRequest[]> {
    const requests: NativeRequest[] = [];
    if (this.rotated) await this.readRotated(requests);
    const { lines, offset } = await readLines(this.path, this.offset);
    this.offset = offset;
    collect(lines, requests);
    if (!this.rotated && this.offset >= this.rotateAtBytes) await this.rotate();
    return requests;
  }

  private async readRotated(requests: NativeRequest[]) {
    const rotated = this.rotated!;
    const { lines, offset } = await readLines(rotated.path, rotated.offset);
    rotated.offset = offset;
    collect(lines, requests);
    rotated.passes += 1;
    const reopened = await fs.stat(this.path).then(
      () => true,
      () => false,
    );
    if (reopened && rotated.passes > 2) {
      await fs.rm(rotated.path, { force: true });
      this.rotated = null;
    }
  }

  private async rotate() {
    const rotatedPath = `${this.path}.1`;
    await fs.rename(this.path, rotatedPath);
    this.rotated = { path: rotatedPath, offset: this.offset, passes: 0 };
    this.offset = 0;
    this.reopen();
  }
}

function collect(lines: string[], into: NativeRequest[]) {
  for (const line of lines) {
    const request = parseMeterLine(line);
    if (request) into.push(request);
  }
}

/** The whole lines after `offset`; the offset moves past them only (a half-written line is read next time). */
async function readLines(path: string, offset: number): Promise<{ lines: string[]; offset: number }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, 'r');
  } catch {
    return { lines: [], offset };
  }
  try {
    const { size } = await handle.stat();
    if (size <= offset) return { lines: [], offset };
    const buffer = Buffer.alloc(size - offset);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    const end = buffer.lastIndexOf(10, bytesRead - 1);
    if (end === -1) return { lines: [], offset };
    const lines = buffer.toString('utf8', 0, end).split('\n');
    return { lines, offset: offset + end + 1 };
  } finally {
    await handle.close();
  }
}
