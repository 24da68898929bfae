// SPDX-License-Identifier: GPL-2.0
//! The card slot: the command and data interface through which the MSDC model drives an
//! attached eMMC or SD card model.

use super::super::emmc::{Card, CardWork, Command, DataError, NoResponse, Response};
use super::super::sd::SdCard;

/// A card on the MSDC bus: the command and data interface both card models offer.
pub trait CardSlot {
    /// Sends a command; `Err` means no response (the host sees a command timeout).
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse>;
    /// Data phase, card to host.
    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError>;
    /// Data phase, host to card.
    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError>;
    /// The data bus width the card expects, if the card model tracks it.
    fn bus_width(&self) -> Option<u8> {
        None
    }
    /// The fastest bus clock the card allows in its current state and mode, if the card
    /// model tracks it.
    fn max_clock_hz(&self) -> Option<u32> {
        None
    }
    /// The busy work the last command started (for the latency model); reading it clears
    /// it. Card models that do not report work answer [`CardWork::None`].
    fn take_work(&mut self) -> CardWork {
        CardWork::None
    }
}

/// Implements [`CardSlot`] for card models whose inherent methods of the same names offer
/// the slot's interface, so that a slot forwards each of them (`take_work` too, or the busy
/// time of power-up, switch, flush and erase would not be charged).
macro_rules! card_slot {
    ($($card:ident),+) => {$(
        impl CardSlot for $card<'_> {
            fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
                $card::command(self, cmd)
            }

            fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
                $card::read_data(self, buf)
            }

            fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
                $card::write_data(self, data)
            }

            fn bus_width(&self) -> Option<u8> {
                Some($card::bus_width(self))
            }

            fn max_clock_hz(&self) -> Option<u32> {
                Some($card::max_clock_hz(self))
            }

            fn take_work(&mut self) -> CardWork {
                $card::take_work(self)
            }
        }
    )+};
}

card_slot!(Card, SdCard);
