import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = {
  tenant: 'ten',
  apiKey: 'key',
  user: 'usr',
  membership: 'mem',
  session: 'ses',
  request: 'req',
  scan: 'scn',
  monitor: 'mon',
  check: 'chk',
  incident: 'inc',
  webhook: 'whk',
  delivery: 'dlv',
  report: 'rpt',
  platformIncident: 'pin',
  platformIncidentUpdate: 'piu',
  maintenance: 'mnt',
  statusSubscription: 'sub',
  event: 'evt',
  container: 'ctr',
  domain: 'dom',
  requestLog: 'log',
  metaPixel: 'mpx',
  invitation: 'inv',
  notificationChannel: 'nch',
  notification: 'ntf',
  outgoingLog: 'out',
  trackingMonitor: 'tmo',
  trackingRun: 'trn',
  trackingIncident: 'tin',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

// Random bytes are drawn from a pooled buffer: one system call per 256 ids instead of one per id
// (every request gets an id).
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;

function randomTail(): string {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[pool[poolOffset + i] & 31];
  poolOffset += 16;
  return tail;
}

/** Type-prefixed, time-sortable id: prefix + '_' + 10 chars of ms timestamp + 16 random chars (ULID layout). */
export function newId(kind: IdKind, now = Date.now()): string {
  let time = '';
  let value = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[value % 32] + time;
    value = Math.floor(value / 32);
  }
  return `${ID_PREFIXES[kind]}_${time}${randomTail()}`;
}

export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`;
}
