package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/answer-guard/guard/index/internal/disk"
)

// AnswerCalibration is one partition's calibration of the answerability
// model, measured on the corpus itself with pseudo-questions (see package
// gate, FitCorpusCalibration). Index only stores it: calibrated =
// sigmoid(A*logit(p) + B).
type AnswerCalibration struct {
	Tenant string  `json:"tenant"`
	KB     string  `json:"kb"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	// Questions is how many pseudo-questions were asked; Found how many
	// retrieved their own passage.
	Questions int `json:"questions"`
	Found     int `json:"found"`
	// Pos and Neg are quantiles (10, 25, 50, 75, 90%) of the model's
	// probability for a pseudo-question's own passage and for the best
	// other passage.
	Pos []float64 `json:"pos"`
	Neg []float64 `json:"neg"`
	// CutPoints maps each gate threshold name to the raw model
	// probability it corresponds to on this corpus.
	CutPoints map[string]float64 `json:"cut_points,omitempty"`
	Fit       string             `json:"fit"`
}

type answerCalFile struct {
	Partitions []AnswerCalibration `json:"partitions"`
}

// WriteAnswerCalibration stores cals in the snapshot at dir (written by
// guard index build/add after the snapshot itself, read by Load), replacing
// any earlier calibration (written to a temporary file, then renamed).
func WriteAnswerCalibration(dir string, cals []AnswerCalibration) error {
	if _, err := os.Stat(filepath.Join(dir, disk.ManifestFile)); err != nil {
		return fmt.Errorf("write calibration: %s is not a snapshot: %w", dir, err)
	}
	b, err := json.MarshalIndent(answerCalFile{Partitions: cals}, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, disk.AnswerCalibrationFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write calibration: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, disk.AnswerCalibrationFile)); err != nil {
		return fmt.Errorf("write calibration: %w", err)
	}
	return nil
}

// ReadAnswerCalibration returns the calibrations stored in the snapshot at
// dir; none (and no error) when the snapshot has no calibration file.
func ReadAnswerCalibration(dir string) ([]AnswerCalibration, error) {
	b, err := os.ReadFile(filepath.Join(dir, disk.AnswerCalibrationFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read calibration: %w", err)
	}
	var f answerCalFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read calibration %s: %w", filepath.Join(dir, disk.AnswerCalibrationFile), err)
	}
	return f.Partitions, nil
}

// AnswerCalibration returns the partition's answerability calibration, nil
// when its snapshot has none.
func (p *Partition) AnswerCalibration() *AnswerCalibration { return p.answerCal }
