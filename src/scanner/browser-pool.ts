import type { Browser } from 'playwright-core';

/** The scan browser: Chromium flags shared with Lighthouse, and one lazily launched Chromium shared by scans. */

export const DEFAULT_HOST_RESOLVER_RULES = 'MAP * ~NOTFOUND , EXCLUDE 127.0.0.1';

export interface ChromiumFlagOptions {
  hostResolverRules?: string;
  ignoreCertSpkiList?: string[];
}

/**
 * Flags shared by the scan browser and the Lighthouse browser. Every connection must go through the guard proxy, so
 * the UDP an HTTP proxy cannot carry is closed: QUIC, and WebRTC's STUN/TURN/peer traffic, which would otherwise reach
 * any address, private ones included (`--webrtc-ip-handling-policy` is the switch this Chromium honours; the `force-`
 * variant is read by Chrome builds). WebTransport ignores --disable-quic but refuses to run through a proxy.
 * test/scanner/webrtc.test.ts checks both channels.
 */
export function chromiumFlags(options: ChromiumFlagOptions): string[] {
  const rules = options.hostResolverRules ?? DEFAULT_HOST_RESOLVER_RULES;
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    ...(rules ? [`--host-resolver-rules=${rules}`] : []),
    ...(options.ignoreCertSpkiList?.length
      ? [`--ignore-certificate-errors-spki-list=${options.ignoreCertSpkiList.join(',')}`]
      : []),
  ];
}

export function userAgentFor(chromeVersion: string): string {
  const major = /^(\d+)/.exec(chromeVersion)?.[1] ?? '130';
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

export interface BrowserPoolOptions extends ChromiumFlagOptions {
  chromiumPath: string;
  concurrency: number;
}

/** One Chromium, launched on first use and relaunched if it dies; at most `concurrency` scans at a time. */
export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {}

  private launch(): Promise<Browser> {
    if (!this.browser) {
      // Loaded on the first browser scan: playwright-core is large, and most processes never scan.
      const launching = import('playwright-core').then(({ chromium }) =>
        chromium.launch({
          executablePath: this.options.chromiumPath,
          headless: true,
          args: chromiumFlags(this.options),
          timeout: 30_000,
        }),
      );
      this.browser = launching;
      launching.then(
        (browser) =>
          browser.on('disconnected', () => {
            if (this.browser === launching) this.browser = null;
          }),
        () => {
          if (this.browser === launching) this.browser = null;
        },
      );
    }
    return this.browser;
  }

  /** Waits for a free slot (until `deadline`), then returns the browser and a release function. */
  async acquire(deadline: number): Promise<{ browser: Browser; release: () => void }> {
    if (this.closed) throw new Error('scanner is closed');
    if (this.active >= this.options.concurrency) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          () => {
            const index = this.waiting.indexOf(wake);
            if (index >= 0) this.waiting.splice(index, 1);
            reject(Object.assign(new Error('no browser slot became free in time'), { code: 'browser_busy' }));
          },
          Math.max(0, deadline - Date.now()),
        );
        this.waiting.push(wake);
      });
    } else {
      this.active++;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
    try {
      return { browser: await this.launch(), release };
    } catch (error) {
      release();
      throw error;
    }
  }

  get stats() {
    return { active: this.active, waiting: this.waiting.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.browser;
    this.browser = null;
    if (pending) await pending.then((browser) => browser.close()).catch(() => {});
  }
}
