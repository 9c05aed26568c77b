// A tracking monitor's rules: each on or off with its severity, and the loss threshold; admins change them.
import { $, api, bindForm, el, text } from './ui.js';
import { RULE_KEYS, RULES, type TrackingMonitor } from './tracking-words.js';

/** Draws the rules of `monitor` into the form; members see them read-only. */
export function drawRules(monitor: TrackingMonitor, canEdit: boolean) {
  $('#tm-rules-table tbody').replaceChildren(
    ...RULE_KEYS.map((key) => {
      const rule = monitor.rules[key];
      const { name, fires } = RULES[key];
      return el(
        'tr',
        {},
        el('th', { scope: 'row' }, el('strong', {}, name), el('br'), el('span', { class: 'hint' }, fires)),
        el(
          'td',
          {},
          el('input', { type: 'checkbox', name: `${key}.enabled`, checked: rule.enabled, 'aria-label': `${name}: on` }),
        ),
        el(
          'td',
          {},
          el(
            'select',
            { name: `${key}.severity`, 'aria-label': `${name}: severity` },
            ['critical', 'warning'].map((severity) =>
              el('option', { value: severity, selected: rule.severity === severity }, severity),
            ),
          ),
        ),
      );
    }),
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, el('label', { for: 'tm-loss-threshold' }, 'Loss threshold (percentage points)')),
      el(
        'td',
        { colspan: 2 },
        el('input', {
          id: 'tm-loss-threshold',
          name: 'loss_threshold_pct',
          type: 'number',
          min: 1,
          max: 100,
          value: monitor.loss_threshold_pct,
        }),
      ),
    ),
  );
  $<HTMLFieldSetElement>('#tm-rules-fields').disabled = !canEdit;
  $<HTMLButtonElement>('#tm-rules-form button[type="submit"]').hidden = !canEdit;
  if (!canEdit) $('#tm-rules-hint').append(' Changing them needs the admin role.');
}

/**
 * Saves the whole rule set (PATCH rules and the loss threshold), then calls `saved` with the monitor. The other
 * settings are sent as they are: the API fills fields a PATCH leaves out with their create defaults (no channels, no
 * container), so a PATCH of the rules alone would drop them.
 */
export function bindRules(current: () => TrackingMonitor, saved: (monitor: TrackingMonitor) => void) {
  bindForm($<HTMLFormElement>('#tm-rules-form'), $('#tm-rules-error'), async (data) => {
    $('#tm-rules-status').textContent = '';
    const rules = Object.fromEntries(
      RULE_KEYS.map((key) => [
        key,
        { enabled: data.has(`${key}.enabled`), severity: text(data, `${key}.severity`) as 'critical' | 'warning' },
      ]),
    );
    const { id, pages, follow_links, interval_seconds, consent_check, container_id, notification_channel_ids } =
      current();
    const monitor = await api<TrackingMonitor>('PATCH', `/api/tracking-monitors/${id}/`, {
      pages,
      follow_links,
      interval_seconds,
      consent_check,
      container_id,
      notification_channel_ids,
      rules,
      loss_threshold_pct: Number(text(data, 'loss_threshold_pct')),
    });
    $('#tm-rules-status').textContent = 'Rules saved.';
    saved(monitor);
  });
}
