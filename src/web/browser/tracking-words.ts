// Tracking monitors in words: rules, statuses, run results and intervals, as the dashboard shows them.
import type { Schemas } from './api-types.js';
import { duration } from './ui.js';

export type TrackingMonitor = Schemas['TrackingMonitor'];
export type TrackingRun = Schemas['TrackingRun'];
export type TrackingIncident = Schemas['TrackingIncident'];
export type TrackingChange = Schemas['TrackingChange'];
export type PageSnapshot = Schemas['TrackingPageSnapshot'];
export type RuleKey = keyof TrackingMonitor['rules'];

/** Each rule as a person reads it: what it is called, and when it fires. */
export const RULES: Record<RuleKey, { name: string; fires: string }> = {
  tracker_removed: { name: 'Tracker removed', fires: 'A tracker of the baseline no longer loads on a page.' },
  tracker_added: { name: 'Tracker added', fires: 'A known tracker loads that the baseline did not have.' },
  unlisted_tracker: {
    name: 'Unlisted tracker',
    fires: 'A tracker appears that is not in our signatures (named only by third-party-web).',
  },
  ids_changed: { name: 'Ids changed', fires: 'A tracker loads with other ids (measurement, pixel or container id).' },
  fires_before_consent: {
    name: 'Fires before consent',
    fires: 'A tracker that waited for consent in the baseline now sends requests before it.',
  },
  consent_changed: {
    name: 'Consent changed',
    fires: 'The consent platform, or Google Consent Mode (presence, version, mode), changed or is gone.',
  },
  server_side_lost: {
    name: 'Server-side endpoint lost',
    fires: 'A server-side endpoint of the baseline is no longer sent to, or its requests fail.',
  },
  container_missing: {
    name: 'Container missing',
    fires: "The linked container's hostname is no longer used by a page (its snippet or endpoint is gone).",
  },
  loss_increased: {
    name: 'Loss increased',
    fires: 'The estimated share of lost conversions rose by more than the threshold.',
  },
};

export const RULE_KEYS = Object.keys(RULES) as RuleKey[];

/** The monitor's status in words, with the class that colours it. */
export const STATUS: Record<TrackingMonitor['status'], { text: string; tone: string }> = {
  pending: { text: 'Waiting for the first run', tone: '' },
  passing: { text: 'Passing: matches the baseline', tone: 'yes' },
  changed: { text: 'Changed: an incident is open', tone: 'no' },
  failing: { text: 'Failing: a page could not be scanned', tone: 'no' },
  paused: { text: 'Paused', tone: '' },
};

/** A run's result in words, with the class that colours it. */
export const RESULT: Record<TrackingRun['result'], { text: string; tone: string }> = {
  queued: { text: 'Queued', tone: '' },
  running: { text: 'Running', tone: '' },
  baseline: { text: 'Baseline', tone: 'yes' },
  matched: { text: 'Matched', tone: 'yes' },
  changed: { text: 'Changed', tone: 'no' },
  failed: { text: 'Failed', tone: 'no' },
};

/** A run that scanned every page: one that can be the baseline. */
export const comparable = (run: TrackingRun) => ['baseline', 'matched', 'changed'].includes(run.result);
export const inProgress = (run: TrackingRun) => run.result === 'queued' || run.result === 'running';

/** How often a monitor runs: "hourly", "every 6 hours", "daily", else "every 90 min". */
export function intervalWords(seconds: number): string {
  if (seconds === 3600) return 'hourly';
  if (seconds === 86_400) return 'daily';
  if (seconds % 3600 === 0) return `every ${seconds / 3600} hours`;
  return `every ${duration(seconds)}`;
}

/** Pages a run scans, in words: "2 pages", "1 page + 3 followed links". */
export function pagesWords(monitor: TrackingMonitor): string {
  const pages = `${monitor.pages.length} ${monitor.pages.length === 1 ? 'page' : 'pages'}`;
  if (!monitor.follow_links) return pages;
  return `${pages} + ${monitor.follow_links} followed ${monitor.follow_links === 1 ? 'link' : 'links'}`;
}

/** When a run happened: when it ended, else when it started or was due. */
export const runTime = (run: TrackingRun) => run.finished_at ?? run.started_at ?? run.due_at;
