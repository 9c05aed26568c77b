export {};

/** What test/client/service.ts (the client project's global setup) hands to the client suite. */
declare module 'vitest' {
  export interface ProvidedContext {
    tagport: {
      /** Where the running service listens (loopback). */
      baseUrl: string;
      /** An owner key of an agency tenant. */
      apiKey: string;
      /** A fixture page the scanner can load, and a page on a host it cannot resolve. */
      pages: { scannable: string; unreachable: string };
    };
  }
}
