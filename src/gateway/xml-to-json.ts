import type http from 'node:http';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { readBodyUpTo } from './body.js';
import type { GatewayRoute } from '../modules/containers/traffic.js';

/** The largest XML body converted; a larger one is refused (413), never forwarded unconverted. */
export const MAX_XML_BYTES = 1024 * 1024;

/** A converted request: the JSON body and the headers that go with it in place of the client's. */
export interface XmlConverted {
  body: Buffer;
  headers: string[];
  /** The length of the XML body the client sent (what is metered). */
  received: number;
}

/** Why the gateway answers the request itself instead of forwarding it. */
export interface XmlRefused {
  status: number;
  code: string;
  message: string;
}

/**
 * Attributes as `@_name` keys, element text as `#text` beside them, repeated elements as arrays, every value kept
 * as the string it was (no number guessing: ids and zip codes keep their leading zeros). Only XML's own five
 * entities are decoded: documents with a DOCTYPE are refused before parsing, so no entity is ever declared.
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  htmlEntities: false,
});

/**
 * The XML to JSON power-up for a request on its way to the tagging server: null when it does not apply (power-up
 * off, path not listed, no XML body), else the JSON body and headers to send, or why the request is refused.
 * `forwarded` is the header list the request would be sent with.
 */
export async function convertXmlRequest(
  req: http.IncomingMessage,
  route: GatewayRoute,
  forwarded: string[],
): Promise<XmlConverted | XmlRefused | null> {
  if (!appliesTo(req, route)) return null;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_XML_BYTES) return tooLarge();
  const xml = await readBodyUpTo(req, MAX_XML_BYTES);
  if (xml === null) return tooLarge();
  const received = xml.length;
  const json = xmlToJson(xml.toString('utf8'));
  if (typeof json !== 'string') return json;
  const body = Buffer.from(json);
  const headers: string[] = [];
  for (let i = 0; i < forwarded.length; i += 2)
    if (forwarded[i].toLowerCase() !== 'content-type') headers.push(forwarded[i], forwarded[i + 1]);
  headers.push('content-type', 'application/json', 'x-tagport-converted-from', 'xml');
  return { body, headers, received };
}

export function isXmlRefused(result: XmlConverted | XmlRefused): result is XmlRefused {
  return 'code' in result;
}

/** The document as JSON text, or a 400 `invalid_xml` saying what is wrong with it. */
export function xmlToJson(xml: string): string | XmlRefused {
  if (/<!DOCTYPE/i.test(xml)) return invalidXml('Documents with a DOCTYPE (and so entity declarations) are refused.');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return invalidXml(`${valid.err.msg} (line ${valid.err.line}).`);
  return JSON.stringify(parser.parse(xml));
}

function appliesTo(req: http.IncomingMessage, route: GatewayRoute): boolean {
  const { enabled, paths } = route.settings.xml_to_json;
  if (!enabled || req.method === 'GET' || req.method === 'HEAD') return false;
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  return paths.includes(queryAt === -1 ? url : url.slice(0, queryAt)) && isXmlType(req.headers['content-type']);
}

/** `application/xml`, `text/xml` and any `*+xml` (SOAP, Atom, …), parameters aside. */
export function isXmlType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/xml' || type === 'text/xml' || /^[a-z]+\/[a-z0-9.!#$&^_-]+\+xml$/.test(type);
}

function tooLarge(): XmlRefused {
  return {
    status: 413,
    code: 'body_too_large',
    message: `An XML body to convert must be at most ${MAX_XML_BYTES} bytes.`,
  };
}

function invalidXml(why: string): XmlRefused {
  return { status: 400, code: 'invalid_xml', message: `The XML body cannot be converted to JSON: ${why}` };
}
