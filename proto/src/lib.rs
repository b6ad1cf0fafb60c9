//! dancehall's gRPC protocol, package `dancehall.v1` (see `proto/dancehall.proto` for the
//! rules every message follows). Generated code lives here, plus [`core`]: the one place
//! where the wire's counting cores meet `cores::grids`, and [`client`]: how every client
//! (worker, CLI, tests) connects. Generated clients in
//! [`v1::worker_client`] / [`v1::jobs_client`], servers in [`v1::worker_server`] /
//! [`v1::jobs_server`].

/// The protocol version this build speaks; sent in every `RequestHeader`.
pub const PROTOCOL_VERSION: u32 = 4;

pub mod client;

/// Generated from `proto/dancehall.proto`.
pub mod v1 {
    tonic::include_proto!("dancehall.v1");
}

/// Bounds on a benchmark task's limits (`BenchTask.time_limit_seconds`,
/// `memory_limit_bytes`), checked where a spec is read, where a task is submitted and where a
/// worker runs one: a limit past them is refused, never a panic or an overflow.
pub mod limits {
    /// A week.
    pub const MAX_TIME_LIMIT_SECONDS: f64 = 7.0 * 24.0 * 3600.0;
    /// One PiB.
    pub const MAX_MEMORY_LIMIT_BYTES: u64 = 1 << 50;

    /// Why a time limit is refused, if it is.
    pub fn check_time_limit(seconds: f64) -> Result<(), String> {
        if seconds > 0.0 && seconds <= MAX_TIME_LIMIT_SECONDS {
            Ok(())
        } else {
            Err(format!(
                "time limit {seconds} s must be positive and at most {MAX_TIME_LIMIT_SECONDS} s (a week)"
            ))
        }
    }

    /// Why a memory limit (bytes, 0 = none) is refused, if it is.
    pub fn check_memory_limit(bytes: u64) -> Result<(), String> {
        if bytes <= MAX_MEMORY_LIMIT_BYTES {
            Ok(())
        } else {
            Err(format!(
                "memory limit {bytes} bytes is above {MAX_MEMORY_LIMIT_BYTES} (1 PiB)"
            ))
        }
    }
}

/// The wire form of the counting cores (`cores::count_core::CountCore`, `CoreSpec`), both ways, for
/// every crate that sends or reads them.
pub mod core {
    use crate::v1 as pb;
    use cores::count_core::{CoreSpec, CountCore};

    /// Unspecified reads as DLX (what a worker without the field counts with).
    pub fn count_core(c: pb::CountCore) -> CountCore {
        match c {
            pb::CountCore::Unspecified | pb::CountCore::Dlx => CountCore::Dlx,
            pb::CountCore::SudokuBands => CountCore::SudokuBands,
            pb::CountCore::Queens => CountCore::Queens,
            pb::CountCore::SudokuGroups => CountCore::SudokuGroups,
            pb::CountCore::SudokuOrbitTerm => CountCore::SudokuOrbitTerm,
            pb::CountCore::TwoBandClass => CountCore::TwoBandClass,
            pb::CountCore::ThreeBandClass => CountCore::ThreeBandClass,
        }
    }

    pub fn count_core_pb(c: CountCore) -> pb::CountCore {
        match c {
            CountCore::Dlx => pb::CountCore::Dlx,
            CountCore::SudokuBands => pb::CountCore::SudokuBands,
            CountCore::Queens => pb::CountCore::Queens,
            CountCore::SudokuGroups => pb::CountCore::SudokuGroups,
            CountCore::SudokuOrbitTerm => pb::CountCore::SudokuOrbitTerm,
            CountCore::TwoBandClass => pb::CountCore::TwoBandClass,
            CountCore::ThreeBandClass => pb::CountCore::ThreeBandClass,
        }
    }

    /// A job's core (unset: DLX); the Sudoku core needs a box shape of at least 1x1.
    pub fn core_spec(c: Option<&pb::CoreSpec>) -> Result<CoreSpec, String> {
        let Some(c) = c else {
            return Ok(CoreSpec::Dlx);
        };
        // The Sudoku cores need a box shape of at least 1x1.
        let shape = |name: &str| {
            if c.box_rows > 0 && c.box_cols > 0 {
                Ok((c.box_rows as usize, c.box_cols as usize))
            } else {
                Err(format!(
                    "core {name} needs box_rows and box_cols of at least 1, got {}x{}",
                    c.box_rows, c.box_cols
                ))
            }
        };
        match count_core(c.core()) {
            CountCore::Dlx => Ok(CoreSpec::Dlx),
            CountCore::SudokuBands => {
                let (box_rows, box_cols) = shape("sudoku-bands")?;
                Ok(CoreSpec::SudokuBands { box_rows, box_cols })
            }
            CountCore::SudokuGroups => {
                let (box_rows, box_cols) = shape("sudoku-groups")?;
                Ok(CoreSpec::SudokuGroups { box_rows, box_cols })
            }
            CountCore::SudokuOrbitTerm => {
                let (box_rows, box_cols) = shape("sudoku-orbits")?;
                Ok(CoreSpec::SudokuOrbits { box_rows, box_cols })
            }
            CountCore::TwoBandClass => {
                let (box_rows, box_cols) = shape("two-band")?;
                Ok(CoreSpec::TwoBand { box_rows, box_cols })
            }
            CountCore::ThreeBandClass => {
                let (box_rows, box_cols) = shape("three-band")?;
                Ok(CoreSpec::ThreeBand { box_rows, box_cols })
            }
            CountCore::Queens if c.n > 0 => Ok(CoreSpec::Queens { n: c.n as usize }),
            CountCore::Queens => Err("core queens needs n of at least 1".to_string()),
        }
    }

    pub fn core_spec_pb(c: CoreSpec) -> pb::CoreSpec {
        let (box_rows, box_cols, n) = match c {
            CoreSpec::Dlx => (0, 0, 0),
            CoreSpec::SudokuBands { box_rows, box_cols } => (box_rows as u32, box_cols as u32, 0),
            CoreSpec::Queens { n } => (0, 0, n as u32),
            CoreSpec::SudokuGroups { box_rows, box_cols }
            | CoreSpec::SudokuOrbits { box_rows, box_cols }
            | CoreSpec::TwoBand { box_rows, box_cols }
            | CoreSpec::ThreeBand { box_rows, box_cols } => (box_rows as u32, box_cols as u32, 0),
        };
        pb::CoreSpec {
            core: count_core_pb(c.core()) as i32,
            box_rows,
            box_cols,
            n,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn cores_round_trip_and_a_bad_shape_is_refused() {
            for c in [
                CoreSpec::Dlx,
                CoreSpec::SudokuBands {
                    box_rows: 2,
                    box_cols: 4,
                },
                CoreSpec::Queens { n: 20 },
                CoreSpec::SudokuGroups {
                    box_rows: 3,
                    box_cols: 3,
                },
                CoreSpec::SudokuOrbits {
                    box_rows: 2,
                    box_cols: 3,
                },
                CoreSpec::TwoBand {
                    box_rows: 2,
                    box_cols: 5,
                },
                CoreSpec::ThreeBand {
                    box_rows: 3,
                    box_cols: 3,
                },
            ] {
                assert_eq!(core_spec(Some(&core_spec_pb(c))), Ok(c));
            }
            assert_eq!(core_spec(None), Ok(CoreSpec::Dlx));
            let bad = pb::CoreSpec {
                core: pb::CountCore::SudokuBands as i32,
                box_rows: 0,
                box_cols: 3,
                n: 0,
            };
            assert!(core_spec(Some(&bad)).unwrap_err().contains("0x3"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::limits::*;

    #[test]
    fn limits_past_the_bounds_are_refused() {
        assert!(check_time_limit(300.0).is_ok());
        for bad in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e300,
            MAX_TIME_LIMIT_SECONDS * 2.0,
        ] {
            assert!(check_time_limit(bad).is_err(), "{bad}");
        }
        assert!(check_memory_limit(0).is_ok());
        assert!(check_memory_limit(512 << 20).is_ok());
        assert!(check_memory_limit(u64::MAX).is_err());
    }
}
