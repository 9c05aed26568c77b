import type { TrackerKey } from './trackers.js';

/** A rule of what inline code reveals (signatures/code.ts and its long tail). */
export interface CodeRule {
  key: TrackerKey;
  pattern: RegExp;
  /** Builds the evidence text from the match; the first capture group is the id when `hasId`. */
  detail: (match: RegExpExecArray) => string;
  hasId: boolean;
  /** Only applied when the code also matches this. */
  when?: RegExp;
  /** Code the rule must match, and code that only looks like it (a longer identifier or host), which it must not. */
  example: string;
  counterexample: string;
}
