// The tenant's notification channels as checkboxes, for the monitor and tracking monitor forms.
import type { Reply } from './api-types.js';
import { api, el } from './ui.js';

/** One checkbox per notification channel of the tenant, `chosen` ticked. */
export async function fillChannelChoices(box: HTMLElement, chosen: string[] = []) {
  const channels = (await api<Reply<'/api/notification-channels/'>>('GET', '/api/notification-channels/?page_size=100'))
    .results;
  if (channels.length === 0) return;
  box.replaceChildren(
    ...channels.map((channel) =>
      el(
        'label',
        {},
        el('input', {
          type: 'checkbox',
          name: 'notification_channel_ids',
          value: channel.id,
          checked: chosen.includes(channel.id),
        }),
        ` ${channel.name}`,
      ),
    ),
  );
}
