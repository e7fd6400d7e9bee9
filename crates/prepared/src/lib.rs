//! The model files scripts/prepare_models.py writes for wonnx: one graph per static input
//! shape, whose large tensors live in one weights file per model, shared by all its shapes
//! (ONNX external data). Read by both WebGPU runtimes: natively (docsift-ocr) and in the
//! browser (webgpu/).

use protobuf::Message;
use wonnx::onnx::{ModelProto, TensorProto, TensorProto_DataLocation};

#[derive(Debug, PartialEq)]
pub enum PreparedError {
    /// Not a readable ONNX file.
    Parse(String),
    /// A tensor names bytes the weights file does not have, or no weights were given.
    Weights(String),
    /// No graph input that is not a weight.
    NoInput,
    /// A file could not be read.
    Io(String),
}

impl std::fmt::Display for PreparedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PreparedError::Parse(e) => write!(f, "prepared model: {e}"),
            PreparedError::Weights(e) => write!(f, "prepared model weights: {e}"),
            PreparedError::NoInput => write!(f, "prepared model has no input"),
            PreparedError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PreparedError {}

/// A prepared graph with its weights in place, ready for `wonnx::Session`.
pub struct Prepared {
    pub proto: ModelProto,
    /// The one input that is not a weight.
    pub input: String,
    /// The graph's outputs in its order, with their static shapes.
    pub outputs: Vec<(String, Vec<usize>)>,
}

fn external<'a>(t: &'a TensorProto, key: &str) -> Option<&'a str> {
    t.get_external_data().iter().find(|e| e.get_key() == key).map(|e| e.get_value())
}

/// The weights file the graph's tensors name (one per model), if any.
pub fn weights_file(bytes: &[u8]) -> Result<Option<String>, PreparedError> {
    let proto = ModelProto::parse_from_bytes(bytes).map_err(|e| PreparedError::Parse(e.to_string()))?;
    Ok(proto
        .get_graph()
        .get_initializer()
        .iter()
        .filter(|t| t.get_data_location() == TensorProto_DataLocation::EXTERNAL)
        .find_map(|t| external(t, "location").map(str::to_string)))
}

/// Reads a prepared file and the weights file it names, beside it.
pub fn read(path: &std::path::Path) -> Result<Prepared, PreparedError> {
    let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| PreparedError::Io(format!("{}: {e}", p.display())));
    let bytes = read(path)?;
    let weights = match weights_file(&bytes)? {
        Some(name) => Some(read(&path.with_file_name(name))?),
        None => None,
    };
    load(&bytes, weights.as_deref())
}

impl Prepared {
    /// The graph as one self-contained ONNX file (for runtimes that read bytes, like tract).
    pub fn to_bytes(&self) -> Result<Vec<u8>, PreparedError> {
        self.proto.write_to_bytes().map_err(|e| PreparedError::Parse(e.to_string()))
    }
}

/// Parses a prepared file and moves its external tensors' bytes in from `weights`.
pub fn load(bytes: &[u8], weights: Option<&[u8]>) -> Result<Prepared, PreparedError> {
    let mut proto = ModelProto::parse_from_bytes(bytes).map_err(|e| PreparedError::Parse(e.to_string()))?;
    for t in proto.mut_graph().mut_initializer().iter_mut() {
        if t.get_data_location() != TensorProto_DataLocation::EXTERNAL {
            continue;
        }
        let span = |key| external(t, key).and_then(|v| v.parse::<usize>().ok());
        let (offset, length) = (span("offset").unwrap_or(0), span("length"));
        let weights =
            weights.ok_or_else(|| PreparedError::Weights(format!("{} is stored outside the file", t.get_name())))?;
        let data = length
            .and_then(|n| weights.get(offset..offset.checked_add(n)?))
            .ok_or_else(|| PreparedError::Weights(format!("{} lies outside the weights file", t.get_name())))?;
        t.set_raw_data(data.to_vec());
        t.mut_external_data().clear();
        t.set_data_location(TensorProto_DataLocation::DEFAULT);
    }
    let graph = proto.get_graph();
    let weights: Vec<&str> = graph.get_initializer().iter().map(|t| t.get_name()).collect();
    let input =
        graph.get_input().iter().map(|i| i.get_name()).find(|n| !weights.contains(n)).ok_or(PreparedError::NoInput)?;
    let outputs = graph
        .get_output()
        .iter()
        .map(|o| {
            let dims = o.get_field_type().get_tensor_type().get_shape().get_dim();
            (o.get_name().to_string(), dims.iter().map(|d| d.get_dim_value().max(0) as usize).collect())
        })
        .collect();
    Ok(Prepared { input: input.to_string(), outputs, proto })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wonnx::onnx::{GraphProto, StringStringEntryProto, ValueInfoProto};

    fn entry(key: &str, value: &str) -> StringStringEntryProto {
        let mut e = StringStringEntryProto::new();
        e.set_key(key.into());
        e.set_value(value.into());
        e
    }

    /// A graph with input `x`, output `y`, and weight `w` stored at `offset`..+8 of `model.weights`.
    fn model_with_external_weight(offset: usize) -> Vec<u8> {
        let mut w = TensorProto::new();
        w.set_name("w".into());
        w.set_data_location(TensorProto_DataLocation::EXTERNAL);
        w.mut_external_data().push(entry("location", "model.weights"));
        w.mut_external_data().push(entry("offset", &offset.to_string()));
        w.mut_external_data().push(entry("length", "8"));
        let mut graph = GraphProto::new();
        graph.mut_initializer().push(w);
        for (name, list) in [("w", 0), ("x", 0), ("y", 1)] {
            let mut v = ValueInfoProto::new();
            v.set_name(name.into());
            if list == 0 { graph.mut_input().push(v) } else { graph.mut_output().push(v) }
        }
        let mut proto = ModelProto::new();
        proto.set_graph(graph);
        proto.write_to_bytes().unwrap_or_default()
    }

    #[test]
    fn external_tensors_take_their_bytes_from_the_shared_weights_file() {
        let bytes = model_with_external_weight(4);
        assert_eq!(weights_file(&bytes), Ok(Some("model.weights".to_string())));
        let weights: Vec<u8> = (0..16).collect();
        let prepared = load(&bytes, Some(&weights)).map_err(|e| e.to_string()).unwrap_or_else(|e| panic!("{e}"));
        let w = &prepared.proto.get_graph().get_initializer()[0];
        assert_eq!(w.get_raw_data(), &[4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(w.get_data_location(), TensorProto_DataLocation::DEFAULT);
        assert_eq!(prepared.input, "x");
        assert_eq!(prepared.outputs.len(), 1);
    }

    #[test]
    fn weights_missing_or_too_short_are_an_error_not_zeros() {
        let bytes = model_with_external_weight(12);
        assert!(matches!(load(&bytes, None), Err(PreparedError::Weights(_))));
        assert!(matches!(load(&bytes, Some(&[0u8; 16])), Err(PreparedError::Weights(_))));
    }
}
