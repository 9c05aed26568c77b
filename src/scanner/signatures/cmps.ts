export interface CmpRule {
  name: string;
  hosts: RegExp[];
  paths?: RegExp[];
  code: RegExp[];
  globals: string[];
  cookies: RegExp[];
  selectors: string[];
}

export const CMP_RULES: CmpRule[] = [
  {
    name: 'Cookiebot',
    hosts: [/(^|\.)cookiebot\.(com|eu)$/],
    code: [/consent\.cookiebot\.(com|eu)\/uc\.js/, /data-cbid=/i],
    globals: ['Cookiebot', 'CookieConsent'],
    cookies: [/^CookieConsent$/],
    selectors: ['#CybotCookiebotDialog'],
  },
  {
    name: 'OneTrust',
    hosts: [/(^|\.)cookielaw\.org$/, /(^|\.)onetrust\.com$/, /(^|\.)cookiepro\.com$/],
    code: [/otSDKStub\.js|otBannerSdk\.js|OptanonWrapper/],
    globals: ['OneTrust', 'OptanonWrapper', 'Optanon'],
    cookies: [/^OptanonConsent$/, /^OptanonAlertBoxClosed$/],
    selectors: ['#onetrust-banner-sdk', '#onetrust-consent-sdk'],
  },
  {
    name: 'Usercentrics',
    hosts: [/(^|\.)usercentrics\.eu$/, /(^|\.)usercentrics\.com$/],
    code: [/usercentrics/i],
    globals: ['UC_UI', 'usercentrics', '__ucCmp'],
    cookies: [/^uc_/],
    selectors: ['#usercentrics-root', '#usercentrics-cmp-ui'],
  },
  {
    name: 'Didomi',
    hosts: [/(^|\.)privacy-center\.org$/, /(^|\.)didomi\.io$/],
    code: [/didomiConfig|window\.didomi/i],
    globals: ['Didomi', 'didomiOnReady'],
    cookies: [/^didomi_token$/],
    selectors: ['#didomi-host', '#didomi-notice'],
  },
  {
    name: 'Quantcast Choice',
    hosts: [/(^|\.)quantcast\.mgr\.consensu\.org$/, /^cmp\.quantcast\.com$/, /^quantcast\.mgr\.consensu\.org$/],
    code: [/cmp\.quantcast\.com|quantcast\.mgr\.consensu\.org/],
    globals: [],
    cookies: [/^addtl_consent$/],
    selectors: ['.qc-cmp2-container', '#qc-cmp2-ui'],
  },
  {
    name: 'CookieYes',
    hosts: [/(^|\.)cookieyes\.com$/, /(^|\.)cdn-cookieyes\.com$/],
    code: [/cdn-cookieyes\.com/],
    globals: ['cookieyes', 'getCkyConsent'],
    cookies: [/^cookieyes-consent$/],
    selectors: ['.cky-consent-container', '#cookie-law-info-bar'],
  },
  {
    name: 'Complianz',
    hosts: [],
    paths: [/\/wp-content\/plugins\/complianz(-gdpr|-gdpr-premium)?\//],
    code: [/complianz|cmplz_/i],
    globals: ['cmplz_banner', 'complianz'],
    cookies: [/^cmplz_/],
    selectors: ['#cmplz-cookiebanner-container', '.cmplz-cookiebanner'],
  },
  {
    name: 'iubenda',
    hosts: [/(^|\.)iubenda\.com$/],
    code: [/_iub\.csConfiguration|cdn\.iubenda\.com/],
    globals: ['_iub'],
    cookies: [/^_iub_cs-/],
    selectors: ['#iubenda-cs-banner'],
  },
  {
    name: 'Axeptio',
    hosts: [/(^|\.)axept\.io$/],
    code: [/axeptioSettings|static\.axept\.io/],
    globals: ['axeptioSettings', '__axeptioSDK', '_axcb'],
    cookies: [/^axeptio_/],
    selectors: ['#axeptio_overlay', '.axeptio_mount'],
  },
  {
    name: 'TrustArc',
    hosts: [/(^|\.)trustarc\.com$/, /(^|\.)truste\.com$/],
    code: [/consent\.trustarc\.com|consent\.truste\.com|truste_/],
    globals: ['truste'],
    cookies: [/^notice_behavior$/, /^notice_gdpr_prefs$/, /^notice_preferences$/],
    selectors: ['#truste-consent-track', '#consent_blackbar'],
  },
];

export function cmpForUrl(raw: string): CmpRule | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  return (
    CMP_RULES.find(
      (rule) =>
        rule.hosts.some((pattern) => pattern.test(host)) || rule.paths?.some((pattern) => pattern.test(url.pathname)),
    ) ?? null
  );
}

export function cmpForCode(code: string): CmpRule | null {
  return CMP_RULES.find((rule) => rule.code.some((pattern) => pattern.test(code))) ?? null;
}

export function cmpForCookie(name: string): CmpRule | null {
  return CMP_RULES.find((rule) => rule.cookies.some((pattern) => pattern.test(name))) ?? null;
}
