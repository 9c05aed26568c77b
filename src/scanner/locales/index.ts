import type { Language } from '../schema.ts';
import * as de from './de.ts';
import * as en from './en.ts';
import * as es from './es.ts';
import * as fr from './fr.ts';
import * as it from './it.ts';
import * as nl from './nl.ts';
import * as pl from './pl.ts';
import * as pt from './pt.ts';
import type { Locale } from './texts.ts';

/** One file per language; adding a language means one new file here and its code in `LANGUAGES` (schema.ts). */
export const LOCALES: Record<Language, Locale> = { en, de, fr, es, it, nl, pt, pl };
