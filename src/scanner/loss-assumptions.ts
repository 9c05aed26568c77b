/** The rates the loss model assumes (scanner/loss.ts), which a caller may override. */
export interface LossAssumptions {
  ad_blocker_rate: number;
  blockers_blocking_analytics: number;
  blockers_blocking_ad_pixels: number;
  first_party_escape_rate: number;
  safari_share: number;
  itp_conversion_loss: number;
  itp_server_side_recovery: number;
  consent_refusal_rate: number;
}
