/** What can stop the fetch stage (scanner/warnings.ts words them, per language in locales/). */
export type FetchWarningCode = 'fetch_timeout' | 'fetch_failed' | 'too_many_redirects' | 'not_html';
