export interface CmpRule {
  name: string;
  hosts: RegExp[];
  paths?: RegExp[];
  code: RegExp[];
  globals: string[];
  cookies: RegExp[];
  selectors: string[];
  /**
   * IAB TCF registered CMP ids (what `__tcfapi('ping')` reports as cmpId). Only well-attested ids are listed (to be
   * completed from IAB Europe's published CMP list); any other id is reported as `tcf_cmp_id` without a name.
   */
  tcfIds?: number[];
}

/** A code signature anchored so it cannot match inside a longer identifier or host name. */
const word = (source: string, flags = '') => new RegExp(`(?<![\\w$])${source}`, flags);
const host = (source: string) => new RegExp(`(?<![\\w-])${source}`);

function cmp(
  name: string,
  hosts: RegExp[],
  rule: Omit<CmpRule, 'name' | 'hosts' | 'globals' | 'cookies' | 'selectors' | 'code'> &
    Partial<Pick<CmpRule, 'globals' | 'cookies' | 'selectors' | 'code'>>,
): CmpRule {
  return { name, hosts, code: [], globals: [], cookies: [], selectors: [], ...rule };
}

/**
 * Consent platforms by script host, code, globals, cookies, banner markup and IAB TCF CMP id. Chosen from the CMP
 * market shares published in "Privacy Policies and Consent Management Platforms: Growth and Users' Interactions over
 * Time" (arXiv:2402.18321, HTTP Archive crawl of December 2023) and "A Cross-Country Analysis of GDPR Cookie Banners"
 * (arXiv:2503.19655, consent-observatory.eu, March 2025), plus the WordPress consent plug-ins with the most installs.
 * Any other IAB TCF CMP is still reported by its registered id (see `cmpForTcfId`).
 */
export const CMP_RULES: CmpRule[] = [
  {
    name: 'Cookiebot',
    tcfIds: [134],
    hosts: [/(^|\.)cookiebot\.(com|eu)$/],
    code: [host('consent\\.cookiebot\\.(com|eu)\\/uc\\.js'), /\bdata-cbid=/i],
    globals: ['Cookiebot', 'CookieConsent'],
    cookies: [/^CookieConsent$/],
    selectors: ['#CybotCookiebotDialog'],
  },
  {
    name: 'OneTrust',
    tcfIds: [28],
    hosts: [/(^|\.)cookielaw\.org$/, /(^|\.)onetrust\.com$/, /(^|\.)cookiepro\.com$/],
    code: [word('(otSDKStub\\.js|otBannerSdk\\.js|OptanonWrapper)')],
    globals: ['OneTrust', 'OptanonWrapper', 'Optanon'],
    cookies: [/^OptanonConsent$/, /^OptanonAlertBoxClosed$/],
    selectors: ['#onetrust-banner-sdk', '#onetrust-consent-sdk'],
  },
  {
    name: 'Usercentrics',
    hosts: [/(^|\.)usercentrics\.eu$/, /(^|\.)usercentrics\.com$/],
    code: [host('(app|web)\\.usercentrics\\.eu'), word('UC_UI\\b')],
    globals: ['UC_UI', 'usercentrics', '__ucCmp'],
    cookies: [/^uc_/],
    selectors: ['#usercentrics-root', '#usercentrics-cmp-ui'],
  },
  {
    name: 'Didomi',
    hosts: [/(^|\.)privacy-center\.org$/, /(^|\.)didomi\.io$/],
    code: [word('didomiConfig\\b'), /\bwindow\.didomiOnReady\b/],
    globals: ['Didomi', 'didomiOnReady'],
    cookies: [/^didomi_token$/],
    selectors: ['#didomi-host', '#didomi-notice'],
  },
  {
    name: 'Quantcast Choice',
    tcfIds: [10],
    hosts: [/(^|\.)quantcast\.mgr\.consensu\.org$/, /^cmp\.quantcast\.com$/, /^cmp\.inmobi\.com$/],
    code: [host('(cmp\\.quantcast\\.com|quantcast\\.mgr\\.consensu\\.org|cmp\\.inmobi\\.com)')],
    globals: [],
    cookies: [/^addtl_consent$/],
    selectors: ['.qc-cmp2-container', '#qc-cmp2-ui'],
  },
  {
    name: 'CookieYes',
    hosts: [/(^|\.)cookieyes\.com$/, /(^|\.)cdn-cookieyes\.com$/],
    code: [host('cdn-cookieyes\\.com')],
    globals: ['cookieyes', 'getCkyConsent'],
    cookies: [/^cookieyes-consent$/],
    selectors: ['.cky-consent-container', '#cookie-law-info-bar'],
  },
  {
    name: 'Complianz',
    hosts: [],
    paths: [/\/wp-content\/plugins\/complianz(-gdpr|-gdpr-premium)?\//],
    code: [word('(complianz\\b|cmplz_)')],
    globals: ['cmplz_banner', 'complianz'],
    cookies: [/^cmplz_/],
    selectors: ['#cmplz-cookiebanner-container', '.cmplz-cookiebanner'],
  },
  {
    name: 'iubenda',
    hosts: [/(^|\.)iubenda\.com$/],
    code: [word('_iub\\.csConfiguration'), host('cdn\\.iubenda\\.com')],
    globals: ['_iub'],
    cookies: [/^_iub_cs-/],
    selectors: ['#iubenda-cs-banner'],
  },
  {
    name: 'Axeptio',
    hosts: [/(^|\.)axept\.io$/],
    code: [word('axeptioSettings\\b'), host('static\\.axept\\.io')],
    globals: ['axeptioSettings', '__axeptioSDK', '_axcb'],
    cookies: [/^axeptio_/],
    selectors: ['#axeptio_overlay', '.axeptio_mount'],
  },
  {
    name: 'TrustArc',
    hosts: [/(^|\.)trustarc\.com$/, /(^|\.)truste\.com$/],
    code: [host('consent\\.(trustarc|truste)\\.com'), word('truste_')],
    globals: ['truste'],
    cookies: [/^notice_behavior$/, /^notice_gdpr_prefs$/, /^notice_preferences$/],
    selectors: ['#truste-consent-track', '#consent_blackbar'],
  },
  // Beyond the ten above: the rest of the most used consent platforms (see the note at the top of the list).
  cmp('Sourcepoint', [/(^|\.)sourcepoint\.(com|mgr\.consensu\.org)$/, /^cdn\.privacy-mgmt\.com$/], {
    code: [word('_sp_\\.config'), word('_sp_queue\\b')],
    globals: ['_sp_', '_sp_queue'],
    cookies: [/^consentUUID$/, /^_sp_v1_/],
    selectors: ['[id^="sp_message_container_"]'],
  }),
  cmp('consentmanager', [/(^|\.)consentmanager\.(net|de|mgr\.consensu\.org)$/], {
    code: [host('(delivery|cdn)\\.consentmanager\\.net')],
    globals: ['cmp_id', '__cmp'],
    cookies: [/^__cmpcc/, /^__cmpconsent/],
    selectors: ['#cmpbox', '#cmpwrapper'],
  }),
  cmp('Osano', [/(^|\.)osano\.com$/], {
    code: [host('cmp\\.osano\\.com')],
    globals: ['Osano'],
    cookies: [/^osano_consentmanager/],
    selectors: ['.osano-cm-window', '.osano-cm-dialog'],
  }),
  cmp('Termly', [/(^|\.)termly\.io$/], {
    code: [host('app\\.termly\\.io')],
    globals: ['Termly'],
    cookies: [/^TERMLY_API_CACHE$/],
    selectors: ['#termly-code-snippet-support'],
  }),
  cmp('Cookie Information', [/(^|\.)cookieinformation\.com$/], {
    code: [host('policy\\.app\\.cookieinformation\\.com')],
    globals: ['CookieInformation'],
    cookies: [/^CookieInformationConsent$/],
    selectors: ['#coiOverlay', '#cookie-information-template-wrapper'],
  }),
  cmp('CookieFirst', [/(^|\.)cookiefirst\.com$/], {
    code: [host('consent\\.cookiefirst\\.com')],
    globals: ['CookieFirst'],
    cookies: [/^cookiefirst-consent$/],
    selectors: ['.cookiefirst-root'],
  }),
  cmp('Cookie Script', [/(^|\.)cookie-script\.com$/], {
    code: [host('cdn\\.cookie-script\\.com')],
    globals: ['CookieScript'],
    cookies: [/^CookieScriptConsent$/],
    selectors: ['#cookiescript_injected'],
  }),
  cmp('CookieHub', [/(^|\.)cookiehub\.(net|eu)$/], {
    code: [host('cdn\\.cookiehub\\.eu'), word('cookiehub\\.load\\(')],
    globals: ['cookiehub'],
    cookies: [/^cookiehub$/],
    selectors: ['.ch2-container'],
  }),
  cmp('Borlabs Cookie', [], {
    paths: [/\/wp-content\/plugins\/borlabs-cookie\//],
    code: [word('BorlabsCookie\\b')],
    globals: ['BorlabsCookie'],
    cookies: [/^borlabs-cookie$/],
    selectors: ['#BorlabsCookieBox', '#BorlabsCookieWidget'],
  }),
  cmp('Real Cookie Banner', [], {
    paths: [/\/wp-content\/plugins\/real-cookie-banner(-pro)?\//],
    code: [word('realCookieBanner\\b')],
    globals: ['realCookieBanner'],
    cookies: [/^real_cookie_banner/],
    selectors: ['.rcb-banner'],
  }),
  cmp('CookieLawInfo', [], {
    paths: [/\/wp-content\/plugins\/cookie-law-info\//],
    code: [word('CLI_ACCEPT_COOKIE_NAME\\b')],
    globals: ['cli_cookiebar_settings'],
    cookies: [/^cookielawinfo-checkbox-/, /^viewed_cookie_policy$/],
    selectors: ['#cookie-law-info-bar'],
  }),
  cmp('GDPR Cookie Compliance (Moove)', [], {
    paths: [/\/wp-content\/plugins\/gdpr-cookie-compliance\//],
    code: [word('moove_frontend_gdpr_scripts\\b')],
    globals: ['moove_frontend_gdpr_scripts'],
    cookies: [/^moove_gdpr_popup$/],
    selectors: ['#moove_gdpr_cookie_info_bar'],
  }),
  cmp('Cookie Notice', [], {
    paths: [/\/wp-content\/plugins\/cookie-notice\//],
    code: [word('cnArgs\\b')],
    globals: ['cnArgs'],
    cookies: [/^cookie_notice_accepted$/],
    selectors: ['#cookie-notice'],
  }),
  cmp('Klaro', [/(^|\.)kiprotect\.com$/], {
    code: [word('klaroConfig\\b')],
    globals: ['klaro', 'klaroConfig'],
    cookies: [/^klaro$/],
    selectors: ['.klaro .cookie-notice', '.klaro .cookie-modal'],
  }),
  cmp('CookieConsent (orestbida)', [], {
    paths: [/\/cookieconsent(\.umd)?(\.min)?\.js$/],
    code: [word('CookieConsent\\.run\\(')],
    globals: ['initCookieConsent'],
    cookies: [/^cc_cookie$/],
    selectors: ['#cc-main', '#cc--main'],
  }),
  cmp('Ketch', [/(^|\.)ketchcdn\.com$/, /(^|\.)ketchjs\.com$/], {
    code: [host('global\\.ketchcdn\\.com')],
    globals: ['ketch'],
    cookies: [/^_ketch_consent_v1_$/],
    selectors: ['#lanyard_root'],
  }),
  cmp('Google Funding Choices', [/^fundingchoicesmessages\.google\.com$/], {
    code: [host('fundingchoicesmessages\\.google\\.com')],
    globals: ['googlefc'],
    cookies: [/^FCCDCF$/, /^FCNEC$/],
    selectors: ['.fc-consent-root'],
    tcfIds: [300],
  }),
  cmp('HubSpot cookie banner', [/^js\.hs-banner\.com$/], {
    code: [host('js\\.hs-banner\\.com')],
    globals: [],
    cookies: [/^__hs_cookie_cat_pref$/, /^__hs_opt_out$/],
    selectors: ['#hs-eu-cookie-confirmation'],
  }),
  cmp('Commanders Act TrustCommander', [/(^|\.)trustcommander\.net$/], {
    code: [host('cdn\\.trustcommander\\.net')],
    globals: [],
    cookies: [/^TC_PRIVACY$/],
    selectors: ['#privacy-cat-modal', '#tc-privacy-wrapper'],
  }),
  cmp('LiveRamp Privacy Manager', [/^gdpr\.privacymanager\.io$/, /^gdpr-wrapper\.privacymanager\.io$/], {
    code: [host('gdpr(-wrapper)?\\.privacymanager\\.io')],
    globals: ['wpJsonpLiverampGdprCmp'],
    cookies: [],
    selectors: ['#_lr_gdpr'],
  }),
  cmp('Sirdata', [/^(cache|choices)\.consentframework\.com$/], {
    code: [host('(cache|choices)\\.consentframework\\.com')],
    globals: ['SDDAN'],
    selectors: ['#sd-cmp'],
  }),
  cmp('Civic Cookie Control', [/^cc\.cdn\.civiccomputing\.com$/], {
    code: [word('CookieControl\\.load\\(')],
    globals: ['CookieControl'],
    cookies: [/^CookieControl$/],
    selectors: ['#ccc', '#ccc-notify'],
  }),
  cmp('Enzuzo', [/(^|\.)enzuzo\.com$/], {
    code: [host('app\\.enzuzo\\.com')],
    globals: ['__enzuzoConfig'],
    cookies: [/^ez-consent-tcf$/],
    selectors: ['.ez-consent'],
  }),
  cmp('Securiti', [/^cdn-prod\.securiti\.ai$/], {
    code: [host('cdn-prod\\.securiti\\.ai')],
    globals: [],
    cookies: [/^__privaci_cookie_consents$/],
    selectors: ['.cmp-banner-container'],
  }),
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

export function cmpForTcfId(id: number): CmpRule | null {
  return CMP_RULES.find((rule) => rule.tcfIds?.includes(id)) ?? null;
}
