// The container settings form's request power-ups: lines of text in the form, objects in `settings`.

import type { Schemas } from './api-types.js';
import { control } from './ui.js';

type Settings = Schemas['Container']['settings'];
type ScheduledRequest = Settings['schedule']['requests'][number];

const SEPARATOR = ' | ';

function filesText(files: Settings['file_proxy']['files']) {
  return files.map((file) => `${file.path} ${file.url} ${file.cache_seconds}`).join('\n');
}

function filesFrom(text: FormDataEntryValue | null) {
  return lines(text).map((line) => {
    const [path = '', url = '', seconds = ''] = line.split(/\s+/);
    return { path, url, cache_seconds: Number(seconds || 3600) };
  });
}

function scheduleText(requests: ScheduledRequest[]) {
  return requests
    .map((request) => [request.name, request.cron, request.method, request.path].join(SEPARATOR))
    .join('\n');
}

/** Keeps each scheduled request's body (set through the API) when its line still names it. */
function scheduleFrom(text: FormDataEntryValue | null, previous: ScheduledRequest[]) {
  return lines(text).map((line) => {
    const [name = '', cron = '', method = 'GET', path = ''] = line.split('|').map((part) => part.trim());
    const before = previous.find((request) => request.name === name);
    return { name, cron, method: method.toUpperCase(), path, body: before?.body ?? null };
  });
}

function lines(text: FormDataEntryValue | null) {
  return String(text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

export function fillRequestPowerups(form: HTMLFormElement, settings: Settings) {
  control(form, 'preview_header').value = settings.preview_header.value ?? '';
  control(form, 'user_id_header').checked = settings.user_id_header.enabled;
  control(form, 'request_delay').checked = settings.request_delay.enabled;
  control(form, 'xml_to_json').checked = settings.xml_to_json.enabled;
  control(form, 'xml_to_json_paths').value = settings.xml_to_json.paths.join(', ');
  control(form, 'file_proxy').checked = settings.file_proxy.enabled;
  control(form, 'file_proxy_files').value = filesText(settings.file_proxy.files);
  control(form, 'schedule').value = scheduleText(settings.schedule.requests);
}

export function requestPowerupsFrom(data: FormData, previous: Settings) {
  const preview = String(data.get('preview_header') ?? '').trim();
  return {
    preview_header: { value: preview || null },
    user_id_header: { enabled: data.get('user_id_header') === 'on' },
    request_delay: { enabled: data.get('request_delay') === 'on' },
    xml_to_json: {
      enabled: data.get('xml_to_json') === 'on',
      paths: String(data.get('xml_to_json_paths') ?? '')
        .split(/[\s,]+/)
        .filter(Boolean),
    },
    file_proxy: { enabled: data.get('file_proxy') === 'on', files: filesFrom(data.get('file_proxy_files')) },
    schedule: { requests: scheduleFrom(data.get('schedule'), previous.schedule.requests) },
  };
}
