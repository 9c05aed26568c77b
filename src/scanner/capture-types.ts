import type { AutoconsentOutcome, ConsentAction } from './autoconsent.js';
import type { CanvasReadback, TypedSentinel } from './behaviours-page.js';
import type { Observation } from './observe.js';
import type { LaunchContainerSnapshot } from './launch-container.js';
import type { SsrfGuard } from './ssrf.js';

/** What a browser capture is given and what it records (browser.ts runs it, session.ts and snapshot.ts fill it). */

export interface RuntimeRequest {
  url: string;
  method: string;
  resourceType: string;
  status: number | null;
  failure: string | null;
  frameUrl: string | null;
  /** ms since the navigation started. */
  atMs: number;
  /** The start of the request body (POST payloads of collection protocols), when there is one. */
  postData: string | null;
}

export interface RuntimeCookie {
  name: string;
  domain: string;
  expires: number;
  httpOnly: boolean;
  setBy: 'script' | 'http';
  /** Script that wrote it through document.cookie, when known. */
  script: string | null;
}

export interface RuntimeFindings {
  finalUrl: string;
  requests: RuntimeRequest[];
  refused: Array<{ url: string; reason: string }>;
  cookies: RuntimeCookie[];
  globals: string[];
  /** Container and tag ids registered in window.google_tag_manager. */
  googleTagIds: string[];
  dataLayer: unknown[];
  banner: { visible: boolean; via: string | null; cmp: string | null };
  tcfApi: boolean;
  /** The CMP id `__tcfapi('ping')` reported (IAB TCF registered CMP id), when there is one. */
  tcfCmpId: number | null;
  /** Requests Content-Security-Policy refused, with the directive (from securitypolicyviolation events). */
  cspViolations: Array<{ url: string; directive: string }>;
  /** What was observed after load; null when the page never loaded. */
  observation: Observation | null;
  /** The navigation or the settle phase hit the time limit. */
  timedOut: boolean;
  /** Non-fatal problems (a snapshot step that failed…). */
  problems: string[];
  /** What autoconsent did, when the run clicked the consent banner (consent check). */
  consentClick?: AutoconsentOutcome;
  /** Canvas pixels read back by scripts (behaviours.ts decides which are fingerprints). */
  canvasReadbacks?: CanvasReadback[];
  /** The value typed into form fields to see keystroke capture (not in consent-check runs). */
  typed?: TypedSentinel;
  /** Bodies of GTM container scripts the page received (bounded), for reading their configuration. */
  containerScripts?: Array<{ url: string; body: string }>;
  /** The Adobe Launch property the page ran (`_satellite._container`); absent when the page has no Launch runtime. */
  launchContainer?: LaunchContainerSnapshot | null;
  /** Service workers the page's scripts asked to register (the contexts block them): worker URL and calling script. */
  serviceWorkers?: Array<{ url: string; script: string | null }>;
  /** localStorage/sessionStorage writes through setItem: area, key, the start of the value, the writing script. */
  storageWrites?: StorageWrite[];
  /** Link targets on the page after observation, in document order (at most 500). */
  links?: string[];
}

export interface CaptureOptions {
  guard: SsrfGuard;
  deadline: number;
  /** Longest observation after load (interaction and settling included). */
  observationCapMs: number;
  /** Network quiet period that ends the observation. */
  quietMs: number;
  /** Requests open longer than this do not hold the settle (long polls, beacons nobody reads). */
  longLivedMs: number;
  locale: string;
  /** MAP/EXCLUDE host rules the guard proxy applies (the same string Chromium gets as --host-resolver-rules). */
  hostRules?: string;
  /** Reject or accept the consent banner with autoconsent before observing (consent check). */
  consentAction?: ConsentAction;
  signal?: AbortSignal;
}

export interface StorageWrite {
  area: 'local' | 'session';
  key: string;
  /** The first 200 characters of the latest value written. */
  value: string;
  /** The first URL on the call stack of the write; null when none had one. */
  script: string | null;
}
