/**
 * Meta Conversions API for the runtime: parse a direct event (or take a GA4 one), map it with `toMetaEvent`, send
 * batches with `MetaConversionsSender.send`, and record each answer with
 * `MetaPixelService.recordDeliveries(deliveryOutcome(...))`.
 */
export { DirectEventBody, parseDirectEvent, type DirectEventInput, type DirectEventParse } from './direct-event.js';
export {
  META_EVENT_NAMES,
  metaEventName,
  toMetaEvent,
  type MetaCustomData,
  type MetaServerEvent,
  type MetaUserData,
} from './events.js';
export { deliveryOutcome } from './outcome.js';
export {
  classifyGraphResponse,
  MAX_EVENTS_PER_REQUEST,
  MetaConversionsSender,
  type GraphError,
  type HttpPoster,
  type MetaPixelTarget,
  type MetaSenderSettings,
  type MetaSendResult,
} from './sender.js';
export {
  fbcFromFbclid,
  fbclidOf,
  HASHED_CUSTOMER_KEYS,
  hashedCustomerInformation,
  hashForMeta,
  normaliseCity,
  normaliseCountry,
  normaliseEmail,
  normaliseExternalId,
  normaliseName,
  normalisePhone,
  normalisePostalCode,
  normaliseRegion,
  type HashedCustomerInformation,
} from './user-data.js';
