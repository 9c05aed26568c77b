import type { JobDefinition } from '../../jobs/definitions.js';
import type { CertificateService } from './service.js';

/** Without ACME configured there is nothing to order or renew. */
export function certificateJobs(certificates: CertificateService, acme: { pollMs: number } | null): JobDefinition[] {
  if (!acme) return [];
  return [
    { every: 'certificate-issue', intervalMs: acme.pollMs, run: () => certificates.issueDue() },
    // A job of its own: an order waiting on an unreachable CA (minutes of retries) must not hold the alert back.
    { every: 'certificate-expiry', intervalMs: acme.pollMs, run: () => certificates.alertExpiring() },
  ];
}
