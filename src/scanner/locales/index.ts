import type { Language } from '../schema.js';
import * as de from './de.js';
import * as en from './en.js';
import * as es from './es.js';
import * as fr from './fr.js';
import * as it from './it.js';
import * as nl from './nl.js';
import * as pl from './pl.js';
import * as pt from './pt.js';
import type { Locale } from './texts.js';

/** One file per language; adding a language means one new file here and its code in `LANGUAGES` (schema.ts). */
export const LOCALES: Record<Language, Locale> = { en, de, fr, es, it, nl, pt, pl };
