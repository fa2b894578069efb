"""Blood-cell images (study 000): reading, the crop pipeline, its cache, PCA, the loader.

One module per concern; this package re-exports their public names
(``from sdca_pegasos.data import blood; blood.crops()``):

========================  ===============================================================
:mod:`.images`            reading: the file list of each split (from the checksums), one
                          image decoded or an error naming it, example images (fig. 1)
:mod:`.detection`         steps 1–6: mean shift, grey, frame neutralisation, dark
                          threshold, opening, nucleus centre (:class:`CropParams`)
:mod:`.geometry`          step 7: the clamped crop window, the negative grey cut, coverage
:mod:`.crop`              the pipeline on one image / file / many files (joblib), and every
                          intermediate image for fig. 4
:mod:`.cache`             every crop computed once, stored under a key of the parameters,
                          the code version, OpenCV and the image checksums
:mod:`.pca`               whitened PCA on the training crops, reconstructions (fig. 7),
                          singular values (fig. 8); cached under the crop key
:mod:`.loader`            :func:`load_blood`: the :class:`~sdca_pegasos.data.dataset.Dataset`
========================  ===============================================================

Data: Kaggle "blood-cells" ``dataset2-master/images/{TRAIN,TEST}``, LYMPHOCYTE (label −1)
versus NEUTROPHIL (label +1); 4982 training and 1244 test images, 320 × 240 RGB JPEG; crops
of 120 × 120, d = 14400 (seeds/000 appendix A, the parameters of the study's notebook).
"""

from __future__ import annotations

from ..fetch import require
from .cache import PIPELINE_VERSION, BloodCrops, cache_dir, crop_cache_key, crops, unit_rows
from .crop import CropResult, crop_file, crop_files, crop_image, pipeline_steps
from .detection import (
    FALLBACK_IMAGE_CENTRE,
    FALLBACK_NAMES,
    FALLBACK_NONE,
    FALLBACK_PRE_OPENING,
    CropParams,
    locate_centre,
    neutralise_frame,
)
from .images import CLASSES, DATASET, SPLITS, ExampleImage, example_images, list_files, read_image
from .loader import load_blood
from .pca import fit_pca, pca_reconstructions, singular_values

__all__ = [
    "CLASSES",
    "DATASET",
    "FALLBACK_IMAGE_CENTRE",
    "FALLBACK_NAMES",
    "FALLBACK_NONE",
    "FALLBACK_PRE_OPENING",
    "PIPELINE_VERSION",
    "SPLITS",
    "BloodCrops",
    "CropParams",
    "CropResult",
    "ExampleImage",
    "cache_dir",
    "crop_cache_key",
    "crop_file",
    "crop_files",
    "crop_image",
    "crops",
    "example_images",
    "fit_pca",
    "list_files",
    "load_blood",
    "locate_centre",
    "neutralise_frame",
    "pca_reconstructions",
    "pipeline_steps",
    "read_image",
    "require",
    "singular_values",
    "unit_rows",
]
