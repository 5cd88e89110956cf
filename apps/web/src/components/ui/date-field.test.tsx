import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { DateField, readDateParts, unfinishedDate } from './date-field.tsx';

function Harness({ min }: { min?: string }) {
  const [value, setValue] = useState('');
  return (
    <>
      <DateField label="Last day" value={value} min={min} onChange={setValue} />
      <output aria-label="value">{value}</output>
      <button type="button" onClick={() => setValue('2026-04-01')}>
        Set April
      </button>
    </>
  );
}

describe('a date typed in the UK order (decision 115)', () => {
  it('asks for day, then month, then year, whatever the browser language', async () => {
    render(<Harness />);
    const group = screen.getByRole('group', { name: 'Last day' });
    const boxes = within(group).getAllByRole('textbox');
    expect(boxes.map((box) => (box as HTMLInputElement).labels?.[0]?.textContent)).toEqual([
      'Day',
      'Month',
      'Year',
    ]);
    expect(within(group).getByText('For example, 27 3 2026')).toBeDefined();
    await userEvent.type(boxes[0]!, '3');
    await userEvent.type(boxes[1]!, '4');
    expect(screen.getByRole('status', { name: 'value' }).textContent).toBe(unfinishedDate);
    await userEvent.type(boxes[2]!, '2026');
    // 3 4 2026 is the 3rd of April, never the 4th of March.
    expect(screen.getByRole('status', { name: 'value' }).textContent).toBe('2026-04-03');
  });

  it('says what is wrong once the field is left, and fills itself from a value set elsewhere', async () => {
    render(<Harness min="2026-03-10" />);
    const group = screen.getByRole('group', { name: 'Last day' });
    const [day, month, year] = within(group).getAllByRole('textbox');
    await userEvent.type(day!, '31');
    await userEvent.type(month!, '2');
    await userEvent.type(year!, '2026');
    expect(within(group).queryByText(/real date/)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Set April' }));
    expect([day, month, year].map((box) => (box as HTMLInputElement).value)).toEqual([
      '1',
      '4',
      '2026',
    ]);
    await userEvent.clear(day!);
    await userEvent.type(day!, '31');
    await userEvent.tab();
    expect(within(group).getByText('Enter a real date, for example 27 3 2026')).toBeDefined();
    expect(group.getAttribute('aria-describedby')).toContain(
      within(group).getByText(/real date/).id,
    );
  });

  it('reads the boxes', () => {
    expect(readDateParts({ day: '', month: '', year: '' })).toEqual({ value: '' });
    expect(readDateParts({ day: '9', month: '', year: '' })).toEqual({
      problem: 'The date must include a month and year',
    });
    expect(readDateParts({ day: '29', month: '2', year: '2027' })).toEqual({
      problem: 'Enter a real date, for example 27 3 2026',
    });
    expect(readDateParts({ day: '1', month: '3', year: '26' })).toEqual({
      problem: 'The year must have 4 numbers, like 2026',
    });
    expect(readDateParts({ day: '1', month: '3', year: '2026' }, { min: '2026-03-10' })).toEqual({
      problem: 'Enter a date on or after 10 March 2026',
    });
    expect(readDateParts({ day: '29', month: '2', year: '2028' })).toEqual({
      value: '2028-02-29',
    });
  });
});
