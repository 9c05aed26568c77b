import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { filterCompactRules } from '@duckduckgo/autoconsent';
import type { BrowserContext, Frame } from 'playwright-core';

/**
 * Our driver for DuckDuckGo's autoconsent (MPL-2.0): its content script runs in every frame and talks to us through
 * `autoconsentSendMessage` (a Playwright binding) and `autoconsentReceiveMessage`, the message protocol of its
 * docs/api.md. We answer `init` with the rules and the action, and run its `eval` requests in the page.
 */

export type ConsentAction = 'optOut' | 'optIn';

export interface AutoconsentOutcome {
  /** CMP autoconsent recognised (its rule name), when any. */
  cmp: string | null;
  /** A visible banner (popup) of that CMP was found. */
  popupFound: boolean;
  /** The opt-out / opt-in rule ran to the end; null when it never ran. */
  clicked: boolean | null;
  /** autoconsent reported that it finished. */
  done: boolean;
  errors: string[];
}

interface CompactRules {
  v: number;
  s: string[];
  r: unknown[];
  index: Record<string, unknown>;
}
interface FullRule {
  name: string;
  runContext?: { main?: boolean; frame?: boolean; urlPattern?: string };
}

const packageDir = dirname(createRequire(import.meta.url).resolve('@duckduckgo/autoconsent'));
let cached: { script: string; compact: CompactRules; full: FullRule[] } | null = null;

function bundle() {
  cached ??= {
    script: readFileSync(join(packageDir, 'autoconsent.playwright.js'), 'utf8'),
    compact: JSON.parse(readFileSync(join(packageDir, '../rules/compact-rules.json'), 'utf8')) as CompactRules,
    full: (JSON.parse(readFileSync(join(packageDir, '../rules/rules.json'), 'utf8')) as { autoconsent: FullRule[] })
      .autoconsent,
  };
  return cached;
}

function ruleRunsIn(rule: FullRule, url: string, mainFrame: boolean): boolean {
  const context = rule.runContext ?? {};
  if (mainFrame ? context.main === false : context.frame !== true) return false;
  if (!context.urlPattern) return true;
  try {
    return new RegExp(context.urlPattern).test(url);
  } catch {
    return false;
  }
}

/** Compact rules omit opt-in steps, so opt-in gets the full rules (only those that run in this frame). */
function rulesFor(action: ConsentAction, url: string, mainFrame: boolean): unknown {
  const { compact, full } = bundle();
  if (action === 'optOut') return { compact: filterCompactRules(compact as never, { url, mainFrame }) };
  return { autoconsent: full.filter((rule) => ruleRunsIn(rule, url, mainFrame)) };
}

interface Message {
  type: string;
  cmp?: string;
  result?: boolean;
  id?: string;
  code?: string;
  details?: unknown;
  url?: string;
  mainFrame?: boolean;
  state?: { lifecycle?: string };
}

export interface AutoconsentDriver {
  outcome: AutoconsentOutcome;
  /** Resolves once the action ran (or nothing was found to click), or at `until` (epoch ms). */
  settled(until: number): Promise<void>;
}

/** Installs autoconsent on every page of the context; call before the first page opens. */
export async function attachAutoconsent(context: BrowserContext, action: ConsentAction): Promise<AutoconsentDriver> {
  const outcome: AutoconsentOutcome = { cmp: null, popupFound: false, clicked: null, done: false, errors: [] };
  let nothingFound = false;
  const reply = (frame: Frame, message: unknown) =>
    frame.evaluate(`window.autoconsentReceiveMessage && autoconsentReceiveMessage(${JSON.stringify(message)})`);
  const config = {
    enabled: true,
    autoAction: action,
    disabledCmps: [],
    enablePrehide: false,
    enableCosmeticRules: false,
    heuristicMode: 'off',
    detectRetries: 10,
    isMainWorld: true,
    visualTest: false,
    logs: { lifecycle: false, rulesteps: false, evals: false, errors: false, messages: false },
  };

  await context.exposeBinding('autoconsentSendMessage', async ({ frame }: { frame: Frame }, message: Message) => {
    try {
      switch (message.type) {
        case 'init':
          await reply(frame, {
            type: 'initResp',
            config,
            rules: rulesFor(action, frame.url(), frame.parentFrame() === null),
          });
          break;
        case 'eval': {
          const result = await frame.evaluate(message.code ?? 'false').catch(() => false);
          await reply(frame, { id: message.id, type: 'evalResp', result });
          break;
        }
        case 'cmpDetected':
          outcome.cmp ??= message.cmp ?? null;
          break;
        case 'popupFound':
          outcome.cmp = message.cmp ?? outcome.cmp;
          outcome.popupFound = true;
          break;
        case 'optOutResult':
        case 'optInResult':
          outcome.clicked = message.result === true;
          break;
        case 'autoconsentDone':
          outcome.done = true;
          break;
        case 'autoconsentError':
          if (outcome.errors.length < 5) outcome.errors.push(JSON.stringify(message.details ?? null).slice(0, 200));
          break;
        case 'report':
          if (message.mainFrame && message.state?.lifecycle === 'nothingDetected') nothingFound = true;
          break;
      }
    } catch {
      /* the frame went away */
    }
  });
  await context.addInitScript({ content: bundle().script });

  return {
    outcome,
    async settled(until: number) {
      while (Date.now() < until) {
        if (outcome.done || outcome.clicked === false) return;
        if (nothingFound && !outcome.popupFound) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}
