/**
 * What the Anonymizer counts as the site's user id (`user_id`) and as personal data (`user_data`), by the names
 * sites give their parameters (GA4 event parameters and user properties, Google's `user_data.*` keys, Meta's short
 * keys, page URL query parameters) and, for personal data, by value: anything holding an e-mail address.
 */

/** Also Meta's and Google's `external_id` (`user_data.external_id`): the site's id of its customer. */
const USER_ID_NAME = /^(user_?data\.)?(user_id|userid|uid|external_id)$/;
/** Google's user-provided data keys: `user_data`, `user_data.email_address`, `user_data.address.city`, … */
const USER_DATA_NAME = /^user_?data($|[._])/;
/** Meta's and Google's short keys for hashed e-mail, phone, first and last name and zip (`em=`, `ph=`). */
const SHORT_NAMES = new Set(['em', 'ph', 'fn', 'ln', 'zp']);
/** A word starting the name or one of its parts: `email`, `user_email`, `phone_number`, `billing.phone`. */
const CONTACT_WORD = /(^|[._-])(e_?mail|phone|telephone)/;
/** A whole part of the name: `first_name`, `customer.last_name`, `street`, `postal_code`, `ip_address`. */
const IDENTITY_PART =
  /(^|[._-])((first|last|full|given|family|middle)_?name|surname|street|address|postal_?code|postcode|zip(_?code)?|birth_?date|date_of_birth)($|[._-])/;
const EMAIL_ADDRESS = /[^\s@<>()[\]\\,;:"/?&=#]+@[^\s@<>()[\]\\,;:"/?&=#]+\.[a-z]{2,}/i;

/** `customerEmail` → `customer_email`, so camel case names match like snake case ones. */
function normalised(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Whether a parameter named so holds the site's id of the user (`user_id`, `userId`, `uid`, `external_id`). */
export function isUserIdName(name: string): boolean {
  return USER_ID_NAME.test(normalised(name));
}

/** Whether a parameter named so holds personal data: an e-mail, phone, name, address or birth date. */
export function isPersonalDataName(name: string): boolean {
  const key = normalised(name);
  return USER_DATA_NAME.test(key) || SHORT_NAMES.has(key) || CONTACT_WORD.test(key) || IDENTITY_PART.test(key);
}

/** Whether a value contains an e-mail address, whatever the parameter holding it is called. */
export function containsEmailAddress(value: string | number): boolean {
  return typeof value === 'string' && EMAIL_ADDRESS.test(value);
}
