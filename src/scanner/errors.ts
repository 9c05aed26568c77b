/** Errors thrown by `Scanner.scan()`. Everything else is reported as warnings inside a (partial) result. */

export type ScanTargetRefusedCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'credentials_in_url'
  | 'private_address';

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

/** Neither the HTTP fetch nor the browser could load the page (DNS failure, connection refused, TLS error…). */
export class ScanTargetUnreachableError extends Error {
  override readonly name = 'ScanTargetUnreachableError';
  readonly code = 'target_unreachable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
