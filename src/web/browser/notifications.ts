import type { Reply, Schemas } from './api-types.js';
import { $, api, bindForm, date, el, messageOf, showError } from './ui.js';

type Channel = Schemas['NotificationChannel'];

// Notification channels: the list, the form, test sends and each channel's deliveries.
const channelsTable = $('#channels-table');

const TARGETS: Record<string, [label: string, placeholder: string, hint: string]> = {
  email: ['Email address', 'oncall@example.com', 'Alerts are emailed to this address.'],
  slack: [
    'Incoming webhook URL',
    'https://hooks.slack.com/services/…',
    'Slack or Mattermost incoming webhook; for Discord, the webhook URL with /slack at the end. Kept secret.',
  ],
  webhook: ['Webhook URL (https)', 'https://hooks.example.com/tagport', 'Receives signed JSON events.'],
};
const TYPE_NAMES: Record<string, string> = { email: 'Email', slack: 'Slack-compatible', webhook: 'Signed webhook' };
const EVENT_NAMES: Record<string, string> = {
  'incident.opened': 'incident opened',
  'incident.acknowledged': 'incident acknowledged',
  'incident.resolved': 'incident resolved',
  'certificate.failed': 'certificate failed',
  'container.failed': 'container failed',
  'container.forwarding_degraded': 'forwards lost',
  'tracking_incident.opened': 'tracking changed',
  'tracking_incident.resolved': 'tracking back to baseline',
};
const eventsText = (types: string[]) =>
  types.length === Object.keys(EVENT_NAMES).length ? 'All events' : types.map((type) => EVENT_NAMES[type]).join(', ');

function showTargetHelp() {
  const [label, placeholder, hint] = TARGETS[$<HTMLSelectElement>('#channel-type').value];
  $('#channel-target-label').textContent = label;
  $<HTMLInputElement>('#channel-target').placeholder = placeholder;
  $<HTMLInputElement>('#channel-target').type =
    $<HTMLSelectElement>('#channel-type').value === 'email' ? 'email' : 'url';
  $('#channel-target-hint').textContent = hint;
}

async function loadChannels() {
  const channels = await api<Reply<'/api/notification-channels/'>>('GET', '/api/notification-channels/?page_size=100');
  channelsTable.querySelector('tbody')!.replaceChildren(
    ...(channels.results.length
      ? channels.results.map((channel) =>
          el(
            'tr',
            {},
            el('td', {}, channel.name),
            el('td', {}, TYPE_NAMES[channel.type] ?? channel.type),
            el('td', {}, el('code', {}, channel.target)),
            el('td', {}, eventsText(channel.event_types)),
            el(
              'td',
              {},
              el(
                'button',
                { type: 'button', onclick: () => sendTest(channel), 'aria-label': `Send test to ${channel.name}` },
                'Send test',
              ),
              ' ',
              el(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  onclick: () => showDeliveries(channel),
                  'aria-label': `Deliveries of ${channel.name}`,
                },
                'Deliveries',
              ),
              ' ',
              el(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  onclick: () => deleteChannel(channel),
                  'aria-label': `Delete ${channel.name}`,
                },
                'Delete',
              ),
            ),
          ),
        )
      : [el('tr', {}, el('td', { colspan: 5 }, 'No channels yet.'))]),
  );
}

async function sendTest(channel: Channel) {
  try {
    await api('POST', `/api/notification-channels/${channel.id}/test/`);
    $('#channels-status').textContent = `Test queued for ${channel.name}.`;
    await showDeliveries(channel, false);
  } catch (error) {
    $('#channels-status').textContent = messageOf(error);
  }
}

async function deleteChannel(channel: Channel) {
  if (!confirm(`Delete the channel ${channel.name}? Monitors stop notifying it.`)) return;
  try {
    await api('DELETE', `/api/notification-channels/${channel.id}/`);
    $('#channels-status').textContent = `Deleted ${channel.name}.`;
    $('#deliveries-section').hidden = true;
  } catch (error) {
    $('#channels-status').textContent = messageOf(error);
  }
  await loadChannels();
}

async function showDeliveries(channel: Channel, focus = true) {
  const deliveries = await api<Reply<'/api/notification-channels/{id}/deliveries/'>>(
    'GET',
    `/api/notification-channels/${channel.id}/deliveries/?page_size=50`,
  );
  $('#deliveries-heading').textContent = `Deliveries to ${channel.name}`;
  $('#deliveries-table tbody').replaceChildren(
    ...(deliveries.results.length
      ? deliveries.results.map((delivery) =>
          el(
            'tr',
            {},
            el('td', {}, date(delivery.created_at)),
            el('td', {}, EVENT_NAMES[delivery.event_type] ?? delivery.event_type),
            el('td', {}, delivery.title),
            el(
              'td',
              { class: delivery.status === 'succeeded' ? 'yes' : delivery.status === 'failed' ? 'no' : '' },
              delivery.status,
            ),
            el('td', {}, String(delivery.attempts)),
            el('td', {}, delivery.last_error ?? '—'),
          ),
        )
      : [el('tr', {}, el('td', { colspan: 6 }, 'Nothing sent yet.'))]),
  );
  $('#deliveries-section').hidden = false;
  if (focus) $('#deliveries-heading').focus();
}

if (channelsTable) {
  showTargetHelp();
  $('#channel-type').addEventListener('change', showTargetHelp);
  loadChannels().catch((error) => showError($('#channel-error'), error));
  $('#dismiss-secret').addEventListener('click', () => {
    $('#channel-secret').hidden = true;
    $('#channel-name').focus();
  });
  bindForm($<HTMLFormElement>('#channel-form'), $('#channel-error'), async (data) => {
    const created = await api<Reply<'/api/notification-channels/', 'post'>>('POST', '/api/notification-channels/', {
      name: data.get('name'),
      type: data.get('type'),
      target: data.get('target'),
      event_types: data.getAll('event_types'),
    });
    $<HTMLFormElement>('#channel-form').reset();
    showTargetHelp();
    $('#channels-status').textContent = `Added ${created.name}.`;
    if (created.signing_secret) {
      $('#channel-secret-value').textContent = created.signing_secret;
      $('#channel-secret').hidden = false;
    }
    await loadChannels();
  });
}
