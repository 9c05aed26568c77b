import type { CodeRule } from './code-rule.js';
import type { UrlMatch } from './url-match.js';

/**
 * Tag managers beyond GTM (issue 31, mechanism 3), from each product's install documentation: Matomo Tag Manager
 * (`_mtm` queue and `container_<id>.js`, self-hosted under `/js/` or on Matomo Cloud), Commanders Act TagCommander
 * (`tc_vars`, containers at cdn.tagcommander.com/<site id>/, the TCPID cookie) and Ensighten
 * (nexus.ensighten.com/<client>/<space>/Bootstrap.js, `Bootstrapper`, ENSIGHTEN_PRIVACY_* cookies).
 */

function hostIs(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

const MATOMO_CONTAINER = /(?:^|\/)container_([A-Za-z0-9]{8})\.js$/;

/** Container scripts of the tag managers above, on their vendors' hosts (or a self-hosted Matomo's /js/). */
export function matchTagManagerUrls(url: URL): UrlMatch[] {
  const host = url.hostname.toLowerCase();
  const path = url.pathname;
  const matomoCloud = hostIs(host, 'matomo.cloud') || hostIs(host, 'innocraft.cloud');
  const matomo = MATOMO_CONTAINER.exec(path);
  if (matomo && (matomoCloud || /\/js\/container_\w+\.js$/.test(path)))
    return [loader('matomo_tag_manager', matomo[1], `Matomo Tag Manager container ${matomo[1]}`, matomoCloud)];
  if (hostIs(host, 'tagcommander.com')) {
    const site = /^\/(\d{1,7})\//.exec(path)?.[1] ?? null;
    return [loader('tagcommander', site, `TagCommander container${site ? ` of site ${site}` : ''}`, true)];
  }
  if (hostIs(host, 'ensighten.com')) {
    const space = /^\/([\w-]+\/[\w-]+)\/Bootstrap\.js$/.exec(path)?.[1] ?? null;
    return [loader('ensighten', space, `Ensighten ${space ? `Bootstrap.js for ${space}` : 'request'}`, true)];
  }
  return [];
}

function loader(key: UrlMatch['key'], id: string | null, detail: string, byHost: boolean): UrlMatch {
  return { key, role: 'loader', ids: id ? [id] : [], detail, ...(byHost ? { byHost } : {}) };
}

const q = `["']`;
const HOST = '(?<![\\w-])';

/** Ids in the documented install snippets. */
export const TAG_MANAGER_CODE_RULES: CodeRule[] = [
  {
    key: 'matomo_tag_manager',
    when: /(?<![\w$])_mtm\b/,
    pattern: new RegExp(`${HOST}container_([A-Za-z0-9]{8})\\.js${q}`, 'g'),
    hasId: true,
    detail: (m) => `Matomo Tag Manager snippet loads container_${m[1]}.js`,
    example:
      "var _mtm = window._mtm = window._mtm || []; g.src='https://cdn.matomo.cloud/acme.matomo.cloud/container_Ab12Cd34.js';",
    counterexample: "var _mtm = []; g.src='/js/mycontainer_Ab12Cd34.js';",
  },
  {
    key: 'tagcommander',
    pattern: new RegExp(`${HOST}cdn\\.tagcommander\\.com/(\\d{1,7})/`, 'g'),
    hasId: true,
    detail: (m) => `TagCommander container of site ${m[1]}`,
    example: "s.src = 'https://cdn.tagcommander.com/1234/tc_Acme_3.js';",
    counterexample: "s.src = 'https://mycdn.tagcommander.com/1234/tc_Acme_3.js';",
  },
  {
    key: 'ensighten',
    pattern: new RegExp(`${HOST}nexus\\.ensighten\\.com/([\\w-]+/[\\w-]+)/Bootstrap\\.js`, 'g'),
    hasId: true,
    detail: (m) => `Ensighten Bootstrap.js for ${m[1]}`,
    example: "s.src = '//nexus.ensighten.com/acmeretail/prod/Bootstrap.js';",
    counterexample: "s.src = '//nexus.ensighten.community/acmeretail/prod/Bootstrap.js';",
  },
];
