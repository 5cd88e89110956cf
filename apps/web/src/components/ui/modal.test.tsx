import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

function ModalExample() {
  const [isOpen, setIsOpen] = useState(false);
  return (
    <>
      <Button onClick={() => setIsOpen(true)}>Rename camera</Button>
      <Modal isOpen={isOpen} onClose={() => setIsOpen(false)} title="Update camera name">
        <p>New name</p>
      </Modal>
    </>
  );
}

/** One dialog hands over to another, as "Change date" in Cancel Scheduled Pause does. */
function HandOverExample() {
  const [open, setOpen] = useState<'first' | 'second' | null>('first');
  return (
    <>
      {open === 'first' && (
        <Modal isOpen onClose={() => setOpen(null)} title="Cancel Scheduled Pause">
          <Button onClick={() => setOpen('second')}>Change date</Button>
        </Modal>
      )}
      {open === 'second' && (
        <Modal isOpen onClose={() => setOpen(null)} title="Pause subscription">
          <p>Choose a date</p>
        </Modal>
      )}
    </>
  );
}

describe('Modal', () => {
  it('opens as a modal dialog named by its title, and closes returning focus', async () => {
    const user = userEvent.setup();
    render(<ModalExample />);
    const opener = screen.getByRole('button', { name: 'Rename camera' });

    await user.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Update camera name' }) as HTMLDialogElement;
    expect(dialog.open).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(dialog.open).toBe(false);
    expect(screen.queryByText('New name')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('stays open when another dialog hands over to it (the first one’s close event is ignored)', async () => {
    const user = userEvent.setup();
    render(<HandOverExample />);
    await user.click(screen.getByRole('button', { name: 'Change date' }));
    // The first dialog's close event is queued; let it arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = screen.getByRole('dialog', { name: 'Pause subscription' }) as HTMLDialogElement;
    expect(second.open).toBe(true);
    expect(screen.getByText('Choose a date')).toBeTruthy();
  });
});
