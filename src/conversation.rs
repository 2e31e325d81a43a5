//! A session's conversation as one plain model call sees it and adds to it (`bob chat -s`,
//! `bob chat -c`): the user and assistant messages the session's checkpoint keeps (what its
//! turns and earlier chats committed), and one exchange appended after the call.
//!
//! The promises: reading changes nothing (a session with no checkpoint reads as empty); an
//! exchange is appended in one checkpoint update against the revision the call read, so a turn
//! that committed to the session in between makes the append a `conflict` (nothing lost, the
//! checkpoint unchanged), and the session's messages are condensed under pressure exactly as
//! after a turn. Tool messages of earlier turns are not sent: without the calls that asked for
//! them a Chat Completions server refuses them. What is stored is redacted on its way to disk
//! like every checkpoint.

use crate::checkpoint;
use crate::condense::{self, Caps, Mode};
use crate::contracts::{ChatMessage, Role};
use crate::error::{Code, Result};
use crate::home::Home;
use crate::ids::{self, Kind};

/// A session's conversation at one revision.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub session_id: String,
    /// The checkpoint revision read (0: the session has none yet).
    pub revision: u64,
    /// The user and assistant messages, oldest first.
    pub messages: Vec<ChatMessage>,
}

impl Conversation {
    /// The conversation of `session_id` (an `invalid.request` when the id breaks the session
    /// id rule).
    pub fn load(home: &Home, session_id: &str) -> Result<Conversation> {
        ids::check_in_home(home, Kind::Id, "session_id", session_id)?;
        let cp = checkpoint::load(home, session_id)?;
        let messages = cp
            .recent_messages
            .into_iter()
            .filter(|m| matches!(m.role, Role::User | Role::Assistant))
            .map(|m| ChatMessage::new(m.role, m.content))
            .collect();
        Ok(Conversation {
            session_id: session_id.to_string(),
            revision: cp.revision,
            messages,
        })
    }

    /// Puts the session's messages into a request's `messages`, after its own system
    /// messages; returns the user's side of the exchange to store: the request's last user
    /// message.
    pub fn put_before(&self, messages: &mut Vec<ChatMessage>) -> String {
        let asked = messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.clone())
            .unwrap_or_default();
        let at = messages
            .iter()
            .take_while(|m| m.role == Role::System)
            .count();
        messages.splice(at..at, self.messages.iter().cloned());
        asked
    }

    /// Appends `user` and `answer` to the session; returns the new revision. `conflict`
    /// (exit 5) when the session moved on since [`Conversation::load`].
    pub fn append(&self, home: &Home, user: &str, answer: &str) -> Result<u64> {
        let (cp, ()) = checkpoint::update(home, &self.session_id, Some(self.revision), |c| {
            c.recent_messages
                .push(ChatMessage::new(Role::User, user.to_string()));
            c.recent_messages
                .push(ChatMessage::new(Role::Assistant, answer.to_string()));
            c.recent_messages =
                condense::condense(&c.recent_messages, &Caps::default(), Mode::Pressure).messages;
            Ok(())
        })
        .map_err(|e| {
            if e.code == Code::Conflict {
                e.with(
                    "hint",
                    "a turn committed to this session during the call; the answer was not \
                     stored, ask again",
                )
            } else {
                e
            }
        })?;
        Ok(cp.revision)
    }
}
