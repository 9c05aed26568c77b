import type { ContainerSettingsDto } from './settings.js';

/** A setting that cannot be used: the field (as `param`) and why. */
export interface SettingProblem {
  param: string;
  message: string;
}

const ACME_CHALLENGES = '/.well-known/acme-challenge/';
/** Where Request Delay takes requests while it is on. */
const DELAY_PATHS = ['/stape/delay/', '/delay/'];

/**
 * Why the File Proxy's files cannot be served as set, or null: a path the gateway answers itself (`/healthz`, the
 * custom loader, ACME challenges, Request Delay's paths while it is on) or one used twice. Checked against the merged settings, so a new loader path
 * that takes a file's path is caught too.
 */
export function fileProxyProblem(settings: ContainerSettingsDto): SettingProblem | null {
  const loader = `/${settings.loader_path}.js`;
  const seen = new Set<string>();
  for (const [index, file] of settings.file_proxy.files.entries()) {
    const param = `settings.file_proxy.files[${index}].path`;
    const reserved =
      file.path === '/healthz' ? 'the container health check' : file.path === loader ? 'the custom loader' : null;
    if (reserved) return { param, message: `${param} ${file.path} is ${reserved}, answered by the gateway itself.` };
    if (file.path.startsWith(ACME_CHALLENGES))
      return { param, message: `${param} must not be under ${ACME_CHALLENGES}: certificates are validated there.` };
    const delay = settings.request_delay.enabled && DELAY_PATHS.find((prefix) => file.path.startsWith(prefix));
    if (delay) return { param, message: `${param} must not be under ${delay} while Request Delay is on.` };
    if (seen.has(file.path)) return { param, message: `${param} ${file.path} is listed twice.` };
    seen.add(file.path);
  }
  return null;
}
