import { describe, expect, it } from 'vitest';
import { toCsv, utcDays } from '../../../../src/modules/reports/service.js';

const cell = (value: string | number | null) => toCsv([{ value }], ['value']).split('\r\n')[1] ?? '';
const cellWithBreak = (value: string) => toCsv([{ value }], ['value']).slice('value\r\n'.length, -2);

describe('toCsv', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+41 79 000 00 00', "'+41 79 000 00 00"],
    ['-5', "'-5"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\tcmd', "'\tcmd"],
    ['=HYPERLINK("https://evil.example","x")', `"'=HYPERLINK(""https://evil.example"",""x"")"`],
  ])('neutralises the text cell %j as %j', (value, expected) => {
    expect(cell(value)).toBe(expected);
  });

  it('neutralises a text cell starting with a carriage return and still quotes it', () => {
    expect(cellWithBreak('\r=1+1')).toBe(`"'\r=1+1"`);
  });

  it.each([
    [-5, '-5'],
    [66.667, '66.667'],
    [0, '0'],
    [null, ''],
  ])('keeps the number %j numeric', (value, expected) => {
    expect(cell(value)).toBe(expected);
  });

  it('leaves ordinary text alone and quotes commas and quotes (RFC 4180)', () => {
    expect(cell('https://shop.example/')).toBe('https://shop.example/');
    expect(cell('Edge, "quoted"')).toBe('"Edge, ""quoted"""');
    expect(cell('a-b=c')).toBe('a-b=c');
  });
});

describe('utcDays', () => {
  const at = (iso: string) => new Date(iso);

  it('lists every UTC day touched by [start, end)', () => {
    expect(utcDays(at('2026-03-01T00:00:00Z'), at('2026-03-04T00:00:00Z'))).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
    ]);
  });

  it('includes the day of a start in the middle of a day and of an end after midnight', () => {
    expect(utcDays(at('2026-03-01T23:30:00Z'), at('2026-03-02T00:00:01Z'))).toEqual(['2026-03-01', '2026-03-02']);
  });

  it('counts in UTC whatever the offset the dates were written with', () => {
    expect(utcDays(at('2026-03-02T00:30:00+02:00'), at('2026-03-02T01:00:00+02:00'))).toEqual(['2026-03-01']);
  });

  it('crosses month ends and leap days', () => {
    expect(utcDays(at('2028-02-28T12:00:00Z'), at('2028-03-01T12:00:00Z'))).toEqual([
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
    ]);
  });

  it('is empty when the period is empty', () => {
    expect(utcDays(at('2026-03-01T00:00:00Z'), at('2026-03-01T00:00:00Z'))).toEqual([]);
  });
});
