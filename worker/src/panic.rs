//! Panics caught at the edge of a unit's run: a unit's thread must end with a value the
//! session can report or hand back, never with an unwinding panic, and the value says what
//! the panic said (its `&str` or `String` payload, as `std`'s default hook prints it).

use std::any::Any;
use std::panic::AssertUnwindSafe;

/// Runs `f`; a panic inside it becomes `Err` with the panic's message. The closure's state
/// is dropped with the panic (nothing it touched is used afterwards), hence the assertion of
/// unwind safety.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| message(payload.as_ref()))
}

/// What a panic said: its payload when that is a string (`panic!` and the standard library's
/// own panics, such as an arithmetic overflow, always give one).
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_says_what_it_said() {
        assert_eq!(catch(|| 7), Ok(7));
        // A literal payload is a &str, a formatted one a String.
        assert_eq!(
            catch(|| -> u8 { panic!("the sky fell") }),
            Err("the sky fell".to_owned())
        );
        let empty: Vec<u32> = Vec::new();
        let at = std::hint::black_box(3);
        assert_eq!(
            catch(|| empty[at]),
            Err("index out of bounds: the len is 0 but the index is 3".to_owned())
        );
        assert_eq!(
            catch(|| std::panic::panic_any(42u8)),
            Err::<(), _>("a panic without a message".to_owned())
        );
    }
}
