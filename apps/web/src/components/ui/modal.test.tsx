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
});
