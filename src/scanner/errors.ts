/** Errors thrown by `Scanner.scan()`. Everything else is reported as warnings inside a (partial) result. */

export type ScanTargetRefusedCode = 'invalid_url' | 'unsupported_scheme' | 'credentials_in_url' | 'private_address';

/**
 * The target (or a redirect hop of it) is not allowed: not an http(s) URL, or its host is or resolves to a
 * loopback, private, link-local, CGNAT, metadata, unspecified, multicast or otherwise reserved address.
 */
export class ScanTargetRefusedError extends Error {
  override readonly name = 'ScanTargetRefusedError';
  constructor(
    readonly code: ScanTargetRefusedCode,
    message: string,
    readonly host?: string,
    readonly address?: string,
  ) {
    super(message);
  }
}

/**
 * Neither the HTTP fetch nor the browser could load the page (DNS failure, connection refused, TLS error…).
 * The message is shown to the client; `cause` is for the server log.
 */
export class ScanTargetUnreachableError extends Error {
  override readonly name = 'ScanTargetUnreachableError';
  readonly code = 'target_unreachable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Chromium could not be started (missing, not executable, crashed at launch). That is the operator's
 * problem, not the target's: the message says so in plain words, and the launcher's own text (with the
 * binary's path and its log) stays in `cause`, for the server log only.
 */
export class BrowserUnavailableError extends Error {
  override readonly name = 'BrowserUnavailableError';
  readonly code = 'browser_unavailable';
  constructor(cause: unknown) {
    super('the browser could not be started', { cause });
  }
}
