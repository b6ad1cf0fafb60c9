//! The model files of the external configurations (MiniZinc models, the clingo program, the
//! CP-SAT model as a Python script), compiled into the binary from
//! `bench-specs/domino/models/`, so that a worker on any machine runs exactly the models of its
//! build. A run writes the files it needs into its temporary directory; a submitted batch can
//! hash [`MODELS`] to freeze them ("Reproducibility").

/// A model file: its name in `bench-specs/domino/models/` and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! model {
    ($name:literal) => {
        ModelFile {
            name: $name,
            text: include_str!(concat!("../../../bench-specs/domino/models/", $name)),
        }
    };
}

/// Every model file, in a fixed order.
pub const MODELS: &[ModelFile] = &[
    model!("domino.mzn"),
    model!("domino-solve-basic.mzn"),
    model!("domino-solve-inserted.mzn"),
    model!("domino-solve-orientation.mzn"),
    model!("domino-solve-posx.mzn"),
    model!("domino-placement.mzn"),
    model!("domino.lp"),
    model!("domino-cpsat.py"),
];

/// The model file called `name`.
pub fn model(name: &str) -> Option<&'static ModelFile> {
    MODELS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_is_embedded_and_not_empty() {
        for m in MODELS {
            assert!(m.text.len() > 20, "{} is empty", m.name);
            assert_eq!(model(m.name), Some(m));
        }
        assert!(model("domino-solve-basic.mzn")
            .unwrap()
            .text
            .contains("maximize objective"));
    }
}
