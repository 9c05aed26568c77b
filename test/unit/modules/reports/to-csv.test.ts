import { describe, expect, it } from 'vitest';
import { toCsv } from '../../../../src/modules/reports/service.js';

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
