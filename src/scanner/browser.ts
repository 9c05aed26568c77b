import type { Browser } from 'playwright-core';
import type { CaptureOptions, RuntimeFindings } from './capture-types.js';
import { CaptureSession } from './session.js';

/** Stage 2: load the page in headless Chromium without interacting, and record what it does. */

export {
  BrowserPool,
  DEFAULT_HOST_RESOLVER_RULES,
  chromiumFlags,
  userAgentFor,
  type BrowserPoolOptions,
  type ChromiumFlagOptions,
} from './browser-pool.js';

export { CaptureSession, emptyRuntimeFindings } from './session.js';
export type { CaptureOptions, RuntimeCookie, RuntimeFindings, RuntimeRequest } from './capture-types.js';

/** Captures one page in a browser context of its own (closed afterwards). */
export async function capturePage(browser: Browser, url: string, options: CaptureOptions): Promise<RuntimeFindings> {
  const session = await CaptureSession.open(browser, options);
  try {
    return await session.capture(url, options);
  } finally {
    await session.close();
  }
}
