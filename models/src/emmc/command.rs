// SPDX-License-Identifier: GPL-2.0
//! The eMMC command interface of the card model: commands, responses, card states and the
//! words of the device status, the OCR and the command arguments the card decodes
//! (JESD84-B51 §6.10, §6.13, §7.1), as `register!` words.

/// A command as a host sends it: index and argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Command index (CMD0..CMD63).
    pub index: u8,
    /// 32-bit argument.
    pub argument: u32,
}

impl Command {
    /// CMD`index` with argument `argument`.
    pub const fn new(index: u8, argument: u32) -> Self {
        Self { index, argument }
    }
}

/// The card's answer to a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    /// R1: card status.
    R1(u32),
    /// R1b: card status, then busy on DAT0 while the card works.
    R1b(u32),
    /// R2: CID or CSD, most significant word first.
    R2([u32; 4]),
    /// R3: OCR.
    R3(u32),
    /// A CMD13 with SQS set: the queue status register (one bit per ready task).
    QueueStatus(u32),
    /// No response is defined for this command (CMD0).
    None,
}

impl Response {
    /// The 32-bit payload of a short response (0 for R2 and none).
    pub const fn value(&self) -> u32 {
        match *self {
            Response::R1(v) | Response::R1b(v) | Response::R3(v) | Response::QueueStatus(v) => v,
            Response::R2(_) | Response::None => 0,
        }
    }
}

/// The card did not answer (wrong address, wrong state for a broadcast, or a lost command):
/// the host sees a command timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoResponse;

/// Card-internal work a command started that keeps the card busy beyond the bus exchange
/// (an R1b busy phase or power-up), for the latency model (the `latency` module).
///
/// A card reports it through `take_work` right after the command that caused it; data
/// transfers are timed by the controller from the bytes it moved and are not reported here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CardWork {
    /// Nothing beyond the exchange itself.
    #[default]
    None,
    /// Power-up finished with this CMD1/ACMD41 (the response reports the card ready).
    PowerUp,
    /// An EXT_CSD write (eMMC CMD6 SWITCH) other than a cache flush.
    Switch,
    /// An eMMC cache flush (EXT_CSD FLUSH_CACHE).
    Flush,
    /// CMD38 erased (or trimmed or discarded) this many 512-byte blocks.
    Erase {
        /// Blocks affected.
        blocks: u64,
    },
}

field_enum! {
    /// Card states (CURRENT_STATE, card status bits 12:9).
    pub enum CardState: 4 bits, partial {
        /// Idle.
        Idle = 0,
        /// Ready.
        Ready = 1,
        /// Identification.
        Ident = 2,
        /// Stand-by.
        Stby = 3,
        /// Transfer.
        Tran = 4,
        /// Sending data.
        Data = 5,
        /// Receiving data.
        Rcv = 6,
        /// Programming.
        Prg = 7,
        /// Disconnect.
        Dis = 8,
    }

    /// How CMD6 SWITCH changes the addressed EXT_CSD byte (the ACCESS field).
    pub enum SwitchAccess: 2 bits {
        /// 00b: change the command set (the byte and value are ignored).
        CommandSet = 0b00,
        /// 01b: set the bits of the value.
        SetBits = 0b01,
        /// 10b: clear the bits of the value.
        ClearBits = 0b10,
        /// 11b: write the value.
        WriteByte = 0b11,
    }
}

impl CardState {
    /// Whether the state belongs to card identification mode (idle, ready, ident), where
    /// the card runs at the open-drain identification clock and has no RCA yet.
    pub const fn identifying(self) -> bool {
        matches!(self, Self::Idle | Self::Ready | Self::Ident)
    }
}

register! {
    /// The device status an R1 or R1b response carries (JESD84-B51 §6.13).
    pub DEVICE_STATUS(u32) {
        /// The address was out of range.
        31:31 address_out_of_range => bool;
        /// A misaligned address.
        30:30 address_misalign => bool;
        /// The block length is not allowed.
        29:29 block_len_error => bool;
        /// An erase command arrived out of sequence (CMD38 without CMD35/CMD36, CMD36
        /// without CMD35).
        28:28 erase_seq_error => bool;
        /// An invalid selection of erase groups or erase argument.
        27:27 erase_param => bool;
        /// Write-protect violation.
        26:26 wp_violation => bool;
        /// The device is locked.
        25:25 device_is_locked => bool;
        /// A lock/unlock command failed.
        24:24 lock_unlock_failed => bool;
        /// CRC check of the previous command failed.
        23:23 com_crc_error => bool;
        /// Command not legal in this state.
        22:22 illegal_command => bool;
        /// Internal ECC failure.
        21:21 device_ecc_failed => bool;
        /// Internal controller error.
        20:20 cc_error => bool;
        /// General error.
        19:19 error => bool;
        /// CID or CSD overwrite.
        16:16 cid_csd_overwrite => bool;
        /// Write-protected groups were skipped by an erase.
        15:15 wp_erase_skip => bool;
        /// An erase sequence was cleared because a command outside the sequence arrived.
        13:13 erase_reset => bool;
        /// The state the device was in when it received the command.
        12:9 current_state ?=> CardState;
        /// The same bits as a number, for the states [`CardState`] does not name (10: slp).
        12:9 current_state_code;
        /// The buffer is empty and the card accepts data.
        8:8 ready_for_data => bool;
        /// A SWITCH command failed.
        7:7 switch_error => bool;
        /// An exception event is pending.
        6:6 exception_event => bool;
        /// The next command is an application command.
        5:5 app_cmd => bool;
    }

    /// The operation conditions register CMD1 carries and answers with (JESD84-B51 §7.1).
    pub OCR(u32) {
        /// 1.70–1.95 V.
        7:7 v170_195 => bool;
        /// 2.0–2.6 V, in 0.1 V steps.
        14:8 v20_26;
        /// 2.7–3.6 V, in 0.1 V steps.
        23:15 v27_36;
        /// Every voltage bit: a CMD1 argument of zero here asks for none.
        23:7 voltage_window;
        /// Access mode: 00b byte, 10b sector.
        30:29 access_mode;
        /// Power-up has finished (clear while the device is busy).
        31:31 ready => bool;
    }

    /// The argument of the commands that address a device by its RCA (CMD3, CMD5, CMD7,
    /// CMD9, CMD10, CMD13, CMD15).
    pub RCA_ARG(u32) {
        /// Relative card address.
        31:16 rca;
        /// CMD5: go to sleep (set) or wake up.
        15:15 sleep => bool;
        /// CMD13: SQS, send the queue status instead of the device status.
        15:15 sqs => bool;
    }

    /// The argument of CMD6 SWITCH.
    pub SWITCH_ARG(u32) {
        /// How the byte changes.
        25:24 access => SwitchAccess;
        /// The EXT_CSD byte.
        23:16 index;
        /// The value (or bit mask) written.
        15:8 value;
        /// The command set ([`SwitchAccess::CommandSet`]).
        2:0 cmd_set;
    }

    /// The argument of CMD23 SET_BLOCK_COUNT.
    pub SET_BLOCK_COUNT_ARG(u32) {
        /// Reliable write request.
        31:31 reliable_write => bool;
        /// A packed command follows.
        30:30 packed => bool;
        /// Tag request.
        29:29 tag_request => bool;
        /// Context ID.
        28:25 context_id;
        /// Forced programming.
        24:24 forced_programming => bool;
        /// Number of blocks (0: open-ended).
        15:0 blocks;
    }

    /// The argument of CMD44 QUEUED_TASK_PARAMS.
    pub QUEUED_TASK_PARAMS(u32) {
        /// Reliable write request.
        31:31 reliable_write => bool;
        /// Data direction: read (set) or write.
        30:30 data_direction => bool;
        /// Tag request.
        29:29 tag_request => bool;
        /// Context ID.
        28:25 context_id;
        /// Forced programming.
        24:24 forced_programming => bool;
        /// High priority.
        23:23 priority => bool;
        /// Task ID (queue slot).
        20:16 task_id;
        /// Number of blocks.
        15:0 num_blocks;
    }

    /// The argument of CMD46/CMD47 (execute a task) and CMD48 CMDQ_TASK_MGMT.
    pub TASK_ARG(u32) {
        /// Task ID (queue slot).
        20:16 task_id;
        /// CMD48: 1 discards the queue, 2 discards the task.
        3:0 tm_op_code;
    }
}

impl DEVICE_STATUS {
    /// The error bits: those that make a response a failure.
    pub const ERRORS: Self = Self::zeroed()
        .with_address_out_of_range(true)
        .with_address_misalign(true)
        .with_block_len_error(true)
        .with_erase_seq_error(true)
        .with_erase_param(true)
        .with_wp_violation(true)
        .with_lock_unlock_failed(true)
        .with_com_crc_error(true)
        .with_illegal_command(true)
        .with_device_ecc_failed(true)
        .with_cc_error(true)
        .with_error(true)
        .with_cid_csd_overwrite(true)
        .with_wp_erase_skip(true)
        .with_erase_reset(true)
        .with_switch_error(true);
}

/// R1 device status bits, one [`DEVICE_STATUS`] field each.
pub mod status {
    use super::DEVICE_STATUS;

    /// The address was out of range.
    pub const ADDRESS_OUT_OF_RANGE: u32 = DEVICE_STATUS::zeroed()
        .with_address_out_of_range(true)
        .raw();
    /// A misaligned address.
    pub const ADDRESS_MISALIGN: u32 = DEVICE_STATUS::zeroed().with_address_misalign(true).raw();
    /// The block length is not allowed.
    pub const BLOCK_LEN_ERROR: u32 = DEVICE_STATUS::zeroed().with_block_len_error(true).raw();
    /// An erase command arrived out of sequence (CMD38 without CMD35/CMD36, CMD36 without
    /// CMD35).
    pub const ERASE_SEQ_ERROR: u32 = DEVICE_STATUS::zeroed().with_erase_seq_error(true).raw();
    /// An invalid selection of erase groups or erase argument.
    pub const ERASE_PARAM: u32 = DEVICE_STATUS::zeroed().with_erase_param(true).raw();
    /// Write-protect violation.
    pub const WP_VIOLATION: u32 = DEVICE_STATUS::zeroed().with_wp_violation(true).raw();
    /// CRC check of the previous command failed.
    pub const COM_CRC_ERROR: u32 = DEVICE_STATUS::zeroed().with_com_crc_error(true).raw();
    /// Command not legal in this state.
    pub const ILLEGAL_COMMAND: u32 = DEVICE_STATUS::zeroed().with_illegal_command(true).raw();
    /// Internal ECC failure.
    pub const CARD_ECC_FAILED: u32 = DEVICE_STATUS::zeroed().with_device_ecc_failed(true).raw();
    /// Internal controller error.
    pub const CC_ERROR: u32 = DEVICE_STATUS::zeroed().with_cc_error(true).raw();
    /// General error.
    pub const ERROR: u32 = DEVICE_STATUS::zeroed().with_error(true).raw();
    /// The buffer is empty and the card accepts data.
    pub const READY_FOR_DATA: u32 = DEVICE_STATUS::zeroed().with_ready_for_data(true).raw();
    /// An erase sequence was cleared because a command outside the sequence arrived.
    pub const ERASE_RESET: u32 = DEVICE_STATUS::zeroed().with_erase_reset(true).raw();
    /// A SWITCH command failed.
    pub const SWITCH_ERROR: u32 = DEVICE_STATUS::zeroed().with_switch_error(true).raw();
    /// An exception event is pending.
    pub const EXCEPTION_EVENT: u32 = DEVICE_STATUS::zeroed().with_exception_event(true).raw();
    /// The next command is an application command.
    pub const APP_CMD: u32 = DEVICE_STATUS::zeroed().with_app_cmd(true).raw();
    /// Position of CURRENT_STATE (the lowest bit of [`DEVICE_STATUS::current_state`]), for
    /// code that shifts by hand.
    pub const STATE_SHIFT: u32 = DEVICE_STATUS::zeroed()
        .with_const_current_state_code::<1>()
        .raw()
        .trailing_zeros();
}
